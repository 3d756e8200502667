// Standard Webhooks signatures: `v1,` + base64 HMAC-SHA256 of "id.timestamp.body". A
// `whsec_<base64>` secret signs with its decoded bytes; any other secret with its UTF-8 bytes.
import { createHmac, randomBytes } from 'node:crypto';

export function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
