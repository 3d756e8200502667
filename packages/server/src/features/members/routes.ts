import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { addMemberAndInvite } from './invite-mail.ts';
import { CreatedMember, CreateMemberBody, MemberParams, MemberRecord, UnlockedMember, UpdateMemberBody } from './schemas.ts';
import { changeRole, listMembers, removeMember, unlockMember } from './service.ts';

// Members need a user token: a leaked API key can never add people.
const base = { surface: 'manage', scopes: ['manage:write'], jwtOnly: true, orgScope: true } as const;

export async function memberRoutes(app: App) {
  const { config, secrets, limiter } = app.services;

  app.get('/manage/members', {
    config: { access: { ...base, role: 'viewer' } },
    schema: { tags: ['members'], summary: 'List the org\'s members', response: { 200: Envelope(Type.Object({ members: Type.Array(MemberRecord) })) } },
  }, async (request) => ok(await listMembers({ ctx: contextOf(request) })));

  app.post('/manage/members', {
    config: { access: { ...base, role: 'admin' }, docs: { errors: ['conflict'] } },
    schema: { tags: ['members'], summary: 'Add a member (creates an invitation for a new email, mailed to them when SMTP_URL is set)', body: CreateMemberBody, response: { 201: Envelope(CreatedMember) } },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await addMemberAndInvite({ ctx: contextOf(request), input: request.body, secrets, config }));
  });

  app.patch('/manage/members/:id', {
    config: { access: { ...base, role: 'admin' }, docs: { errors: ['conflict'] } },
    schema: { tags: ['members'], summary: 'Change a member\'s role', params: MemberParams, body: UpdateMemberBody, response: { 200: Envelope(MemberRecord) } },
  }, async (request) => ok(await changeRole({ ctx: contextOf(request), input: { ...request.body, ...request.params } })));

  app.delete('/manage/members/:id', {
    config: { access: { ...base, role: 'admin' }, docs: { errors: ['conflict'] } },
    schema: { tags: ['members'], summary: 'Remove a member', params: MemberParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await removeMember({ ctx: contextOf(request), input: request.params })));

  app.post('/manage/members/:id/unlock', {
    config: { access: { ...base, role: 'admin', bodyRequired: false } },
    schema: {
      tags: ['members'], summary: 'Lift a member\'s login lockout (after repeated failed logins) at once',
      params: MemberParams, response: { 200: Envelope(UnlockedMember) },
    },
  }, async (request) => ok(await unlockMember({ ctx: contextOf(request), input: request.params, limiter })));
}
