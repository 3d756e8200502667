// Invitations e-mailed when SMTP_URL is set (issue 33, item 12): a new member gets their
// one-time token by mail through the same SMTP server as alert e-mails, the admin still sees the
// invitation once, and the answer says whether it was mailed. Both dialects (the member and its
// token are stored).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MailServer, mimeParts } from './helpers/delivery-kit.ts';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';

const newEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@people.example`;

eachDialect('invitations by e-mail', ({ name, skip }) => {
  let mail: MailServer;
  beforeAll(async () => { if (!skip) mail = await new MailServer().start(); });
  afterAll(async () => { await mail?.close(); });
  const h = useHarness(name, () => ({ config: { smtpUrl: mail.url, publicUrl: 'https://mallard.example' } }));

  const add = (jwt: string, email: string) => h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: bearer(jwt), payload: { email, role: 'member' } });

  it.skipIf(skip)('mails a new member their token and how to redeem it; the admin still sees it once; the mailed token works', async () => {
    const org = await h.org('Mailed invitations');
    const email = newEmail('invitee');
    const res = await add(org.jwt, email);
    expect(res.statusCode, res.body).toBe(201);
    const { invitation } = res.json().data;
    expect(invitation).toMatchObject({ token: expect.stringMatching(/^mlt_/), emailed: true, set_password_url: '/v1/auth/set-password' });

    const sent = mail.mails.filter((m) => m.to.includes(email));
    expect(sent).toHaveLength(1);
    const text = mimeParts(sent[0].raw)['text/plain'];
    expect(text).toContain(invitation.token);
    expect(text).toContain('https://mallard.example/v1/auth/set-password');
    expect(text).toContain('https://mallard.example/app/#/set-password');
    expect(text).toContain('Mailed invitations');
    expect(sent[0].raw).toMatch(/^subject: Your invitation to Mailed/im);

    const token = /mlt_[A-Za-z0-9]{40}/.exec(text)![0];
    const set = await h.app.inject({ method: 'POST', url: '/v1/auth/set-password', payload: { token, password: 'mailed-password-1' } });
    expect(set.statusCode, set.body).toBe(200);
  });

  it.skipIf(skip)('adding someone who already has an account sends nothing', async () => {
    const first = await h.org('Has an account');
    const other = await h.org('Adds them');
    const email = newEmail('existing');
    const invited = await add(first.jwt, email);
    const token = invited.json().data.invitation.token as string;
    expect((await h.app.inject({ method: 'POST', url: '/v1/auth/set-password', payload: { token, password: 'existing-password-1' } })).statusCode).toBe(200);
    const before = mail.mails.filter((m) => m.to.includes(email)).length;
    const res = await add(other.jwt, email);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).not.toHaveProperty('invitation');
    expect(mail.mails.filter((m) => m.to.includes(email))).toHaveLength(before);
  });
});

eachDialect('invitations when the mail fails', ({ name, skip }) => {
  // Nothing listens on port 1: the connection is refused.
  const h = useHarness(name, { config: { smtpUrl: 'smtp://127.0.0.1:1' } });

  it.skipIf(skip)('the member is added and the answer says the invitation was not mailed', async () => {
    const org = await h.org('Mail down');
    const email = newEmail('unmailed');
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: bearer(org.jwt), payload: { email, role: 'viewer' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ email, status: 'invited', invitation: { token: expect.stringMatching(/^mlt_/), emailed: false } });
    const listed = await h.app.inject({ method: 'GET', url: '/v1/manage/members', headers: bearer(org.jwt) });
    expect(listed.json().data.members.map((m: { email: string }) => m.email)).toContain(email);
  });
});
