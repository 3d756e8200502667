// One outbound POST: the target is checked (and resolved) at send time, and the connection
// goes to exactly the address that was checked, so DNS cannot swap in a private one later.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { AppError } from '../domain/errors.ts';
import { SEND_TIMEOUT_MS } from '../events/jobs.ts';
import { checkTarget, type TargetPolicy } from './targets.ts';

const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult { ok: boolean; statusCode: number | null; latencyMs: number; error: string | null; body: string }

export async function postJson(rawUrl: string, body: string, headers: Record<string, string>, policy: TargetPolicy, timeoutMs = SEND_TIMEOUT_MS): Promise<SendResult> {
  const started = Date.now();
  let target;
  try {
    target = await checkTarget(rawUrl, policy);
  } catch (err) {
    return { ok: false, statusCode: null, latencyMs: Date.now() - started, error: err instanceof AppError ? `refused: ${err.details?.reason ?? err.message}` : 'refused', body: '' };
  }
  // Answered on the next tick, as dns.lookup does: a synchronous answer lets a synchronous
  // connect error (ENETUNREACH, say) reach the socket before the request listens to it, and
  // that uncaught 'error' would take the whole process down.
  const pinned: LookupFunction = (_host, options, callback) => process.nextTick(() => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target.address]);
    else callback(null, target.address.address, target.address.family);
  });
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    const req = send(target.url, {
      method: 'POST',
      lookup: pinned,
      timeout: timeoutMs,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Mallard-Webhooks/1', ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { if (text.length < MAX_RESPONSE_BYTES) text += chunk; });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        resolve({ ok: status >= 200 && status < 300, statusCode: status, latencyMs: Date.now() - started, error: status >= 200 && status < 300 ? null : `HTTP ${status}`, body: text.slice(0, MAX_RESPONSE_BYTES) });
      });
      res.on('error', (err) => resolve({ ok: false, statusCode: res.statusCode ?? null, latencyMs: Date.now() - started, error: err.message, body: '' }));
    });
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ ok: false, statusCode: null, latencyMs: Date.now() - started, error: err.message, body: '' }));
    req.end(body);
  });
}
