// Every secret the service uses is derived from MALLARD_SECRET with HKDF, one per purpose,
// so a key for hashing API keys can never sign a JWT or decrypt a webhook secret. During a
// rotation MALLARD_SECRET_PREVIOUS derives a second set that only verifies and opens.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export type Purpose = 'api-key' | 'jwt' | 'encryption' | 'token' | 'ip-hash' | 'privacy-subject' | 'session' | 'csrf' | 'oauth-record' | 'oauth-signing' | 'oauth-cookie';

/**
 * The keyring: MALLARD_SECRET (current) and, during a rotation, MALLARD_SECRET_PREVIOUS.
 * Everything new is made with the current secret (HMACs, JWTs, sealed values); what was made
 * with either still verifies or opens, so a rotation invalidates nothing while both are set.
 */
export class Secrets {
  private readonly current: Map<Purpose, Buffer>;
  private readonly previous: Map<Purpose, Buffer> | null;

  constructor(private readonly root: string, private readonly previousRoot: string | null = null) {
    this.current = new Map();
    this.previous = previousRoot === null || previousRoot === root ? null : new Map();
  }

  /** Whether a previous secret is set (a rotation is under way). */
  get hasPrevious(): boolean {
    return this.previous !== null;
  }

  private derive(cache: Map<Purpose, Buffer>, root: string, purpose: Purpose): Buffer {
    let key = cache.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', root, 'mallard', `mallard:${purpose}`, 32));
      cache.set(purpose, key);
    }
    return key;
  }

  /** The current secret's key for a purpose: what signs and seals. */
  key(purpose: Purpose): Buffer {
    return this.derive(this.current, this.root, purpose);
  }

  /** Every key that verifies for a purpose: the current one first, then the previous one if set. */
  keys(purpose: Purpose): Buffer[] {
    const keys = [this.key(purpose)];
    if (this.previous && this.previousRoot !== null) keys.push(this.derive(this.previous, this.previousRoot, purpose));
    return keys;
  }

  /** HMAC-SHA256 (hex) of a value under the purpose's current key: how keys and tokens are stored. */
  hmac(purpose: Purpose, value: string): string {
    return createHmac('sha256', this.key(purpose)).update(value).digest('hex');
  }

  /** The value's HMAC under every key of the keyring, current first: what a stored hash may be. */
  hmacs(purpose: Purpose, value: string): string[] {
    return this.keys(purpose).map((key) => createHmac('sha256', key).update(value).digest('hex'));
  }

  /** AES-256-GCM under the current key; the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key('encryption'), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    return this.open(sealed).plain;
  }

  /**
   * Opens a sealed value with the current key, else the previous one (GCM's tag tells a wrong
   * key apart); `stale` says it was sealed with the previous secret and wants re-sealing.
   */
  open(sealed: string): { plain: string; stale: boolean } {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unreadable sealed value');
    const keys = this.keys('encryption');
    for (let i = 0; i < keys.length; i++) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', keys[i], Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return { plain: Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8'), stale: i > 0 };
      } catch {
        // Not this key: try the next one.
      }
    }
    throw new Error('unreadable sealed value');
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
