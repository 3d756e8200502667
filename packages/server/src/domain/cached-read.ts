// A service's read answered through the store's read cache (store/read-cache.ts) when the
// context has one (GET routes of the query surface), else computed. The key names what the
// answer depends on besides the stored rows: the operation, the resolved site and the input.
import type { ServiceContext } from './context.ts';

export function cachedRead<T>(ctx: ServiceContext, key: readonly unknown[], compute: () => Promise<T>): Promise<T> {
  return ctx.readCache ? ctx.readCache.get(JSON.stringify(key), ctx.now, compute) : compute();
}
