// The org's members on /manage: listed to any user; added (with an invitation, mailed when
// SMTP_URL is set), given another role, removed and unlocked by an admin. A user token and an
// org-scoped credential only: a leaked API key can never add people.
import { Type } from '@sinclair/typebox';
import { partOf } from '../../domain/context.ts';
import { defineOperation } from '../../domain/operation.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { addMemberAndInvite } from './invite-mail.ts';
import { CreatedMember, CreateMemberBody, MemberParams, MemberRecord, UnlockedMember, UpdateMemberBody } from './schemas.ts';
import { changeRole, listMembers, removeMember, unlockMember } from './service.ts';

const MEMBERS_ACCESS = { scopes: ['manage:write'], jwtOnly: true, orgScope: true } as const;
const ADMIN_ACCESS = { ...MEMBERS_ACCESS, role: 'admin' } as const;

export const listMembersOp = defineOperation({
  name: 'members.list',
  summary: 'List the org\'s members',
  access: { ...MEMBERS_ACCESS, role: 'viewer' },
  http: { method: 'GET', path: '/manage/members', surface: 'manage', tags: ['members'] },
  input: {},
  output: Type.Object({ members: Type.Array(MemberRecord) }),
  run: (ctx) => listMembers({ ctx }),
});

export const addMemberOp = defineOperation({
  name: 'members.add',
  summary: 'Add a member (creates an invitation for a new email, mailed to them when SMTP_URL is set)',
  access: ADMIN_ACCESS,
  http: { method: 'POST', path: '/manage/members', surface: 'manage', tags: ['members'], status: 201, errors: ['conflict'] },
  input: { body: CreateMemberBody },
  output: CreatedMember,
  write: { idempotent: false },
  run: (ctx, input) => addMemberAndInvite({ ctx, input, secrets: partOf(ctx, 'secrets'), config: partOf(ctx, 'config') }),
});

export const changeRoleOp = defineOperation({
  name: 'members.change_role',
  summary: 'Change a member\'s role',
  access: ADMIN_ACCESS,
  http: { method: 'PATCH', path: '/manage/members/:id', surface: 'manage', tags: ['members'], errors: ['conflict'] },
  input: { params: MemberParams, body: UpdateMemberBody },
  output: MemberRecord,
  write: { idempotent: true },
  run: (ctx, input) => changeRole({ ctx, input }),
});

export const removeMemberOp = defineOperation({
  name: 'members.remove',
  summary: 'Remove a member',
  access: ADMIN_ACCESS,
  http: { method: 'DELETE', path: '/manage/members/:id', surface: 'manage', tags: ['members'], errors: ['conflict'] },
  input: { params: MemberParams },
  output: Deleted,
  write: { idempotent: false },
  run: (ctx, input) => removeMember({ ctx, input }),
});

export const unlockMemberOp = defineOperation({
  name: 'members.unlock',
  summary: 'Lift a member\'s login lockout (after repeated failed logins) at once',
  access: ADMIN_ACCESS,
  http: { method: 'POST', path: '/manage/members/:id/unlock', surface: 'manage', tags: ['members'], bodyRequired: false },
  input: { params: MemberParams },
  output: UnlockedMember,
  write: { idempotent: true },
  run: (ctx, input) => unlockMember({ ctx, input, limiter: partOf(ctx, 'limiter') }),
});

export const MEMBER_OPERATIONS = [listMembersOp, addMemberOp, changeRoleOp, removeMemberOp, unlockMemberOp];
