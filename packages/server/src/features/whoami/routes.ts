import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { Whoami } from './schemas.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { whoami } from './service.ts';

export async function whoamiRoutes(app: App) {
  app.get('/query/whoami', {
    // Open during a required 2FA enrolment: the dashboard learns from it that the user must enrol.
    config: { access: { ...QUERY_ACCESS, duringMfaEnrolment: true } },
    schema: { tags: ['query'], summary: 'The calling credential: org, site, type and scopes', response: { 200: Envelope(Whoami) } },
  }, async (request) => ok(whoami({ ctx: contextOf(request) })));
}
