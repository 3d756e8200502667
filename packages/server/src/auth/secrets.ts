// Every secret the service uses is derived from MALLARD_SECRET with HKDF, one per purpose,
// so a key for hashing API keys can never sign a JWT or decrypt a webhook secret.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export type Purpose = 'api-key' | 'jwt' | 'encryption' | 'token' | 'ip-hash' | 'privacy-subject';

export class Secrets {
  private readonly keys = new Map<Purpose, Buffer>();

  constructor(private readonly root: string) {}

  key(purpose: Purpose): Buffer {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.root, 'mallard', `mallard:${purpose}`, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }

  /** HMAC-SHA256 (hex) of a value under the purpose's key: how keys and tokens are stored. */
  hmac(purpose: Purpose, value: string): string {
    return createHmac('sha256', this.key(purpose)).update(value).digest('hex');
  }

  /** AES-256-GCM; the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key('encryption'), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unreadable sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key('encryption'), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 text (crypto.randomInt rejects modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}
