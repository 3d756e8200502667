// Invitations by e-mail: when SMTP_URL is set, a new member's invitation (its one-time token and
// how to redeem it) is mailed to them through the same SMTP server as alert e-mails
// (delivery/channels.ts). The answer still shows the invitation to the admin, once, and says
// whether it was mailed; a mail that fails does not undo the member (the admin sends the link).
import nodemailer from 'nodemailer';
import { PASSWORD_MIN } from '../../auth/passwords.ts';
import type { Config } from '../../config.ts';
import type { ServiceContext } from '../../domain/context.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { CreateMemberBody } from './schemas.ts';
import { addMember } from './service.ts';

/** Connecting, the greeting and each read or write of the SMTP conversation. */
const MAIL_TIMEOUT_MS = 10_000;

interface Invitation { token: string; expires_at: string; set_password_url: string }

/** The message: plain text, the token and the one request that redeems it. */
export function invitationMessage(input: { orgName: string; invitedBy: string | null; invitation: Invitation; publicUrl: string }) {
  const redeem = `${input.publicUrl}${input.invitation.set_password_url}`;
  const text = [
    `You have been invited to ${input.orgName} on Mallard${input.invitedBy ? ` by ${input.invitedBy}` : ''}.`,
    '',
    `Your invitation token (valid until ${input.invitation.expires_at}, usable once):`,
    '',
    `  ${input.invitation.token}`,
    '',
    `Choose your password: open ${input.publicUrl}/app/#/set-password and paste the token.`,
    '',
    'Or from a terminal:',
    '',
    `  curl -X POST ${redeem} -H 'content-type: application/json' \\`,
    `    -d '{"token": "${input.invitation.token}", "password": "<at least ${PASSWORD_MIN} characters>"}'`,
    '',
    `Then sign in at ${input.publicUrl}/ with this e-mail address.`,
    'If you did not expect this, ignore this message: the token expires unused.',
  ].join('\n');
  return { subject: `Your invitation to ${input.orgName} on Mallard`, text };
}

/** Sends one invitation; false (and a warning without the address) when it could not. */
async function mailInvitation(config: Pick<Config, 'smtpUrl' | 'publicUrl'>, ctx: ServiceContext, to: string, invitation: Invitation): Promise<boolean> {
  if (!config.smtpUrl) return false;
  const transport = nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: MAIL_TIMEOUT_MS, greetingTimeout: MAIL_TIMEOUT_MS, socketTimeout: MAIL_TIMEOUT_MS });
  try {
    const message = invitationMessage({ orgName: ctx.auth.org.name, invitedBy: ctx.auth.user?.email ?? null, invitation, publicUrl: config.publicUrl });
    await transport.sendMail({ from: 'Mallard <invitations@mallard.invalid>', to, ...message });
    return true;
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'invitation e-mail not sent');
    return false;
  } finally {
    transport.close();
  }
}

/** Adds a member (members/service.ts), then mails a new user's invitation when SMTP_URL is set. */
export async function addMemberAndInvite({ ctx, input, secrets, config }: { ctx: ServiceContext; input: CreateMemberBody; secrets: Secrets; config: Pick<Config, 'smtpUrl' | 'publicUrl'> }) {
  const member = await addMember({ ctx, input, secrets });
  if (!('invitation' in member) || !member.invitation) return member;
  const emailed = await mailInvitation(config, ctx, member.email, member.invitation);
  return { ...member, invitation: { ...member.invitation, emailed } };
}
