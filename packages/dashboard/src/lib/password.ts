// The server's password rule (packages/server/src/auth/passwords.ts), so a form can say it before sending.
export const PASSWORD_MIN = 8;
