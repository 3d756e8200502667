// A person's data on /manage: the export (streamed) and the erasure. Derived from the catalog
// (operations.ts); both take exactly one of visitor_id and user_ref.
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import type { RouteDocs } from '../../http/openapi.ts';
import { PRIVACY_OPERATIONS } from './operations.ts';
import { SUBJECT_KEYS } from './schemas.ts';

const docs: RouteDocs = { exactlyOneOf: SUBJECT_KEYS };

export async function privacyRoutes(app: App) {
  for (const op of PRIVACY_OPERATIONS) operationRoute(app, op, docs);
}
