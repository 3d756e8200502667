// The route table: every registered route with its method, pattern, schema and access rule.
// It is the one list the 405 handling, the OpenAPI test and the route security test read, and
// it refuses to let the app start with a route that declares no access rule: a route someone
// forgot to protect would otherwise be open to everyone.
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import type { Operation } from '../domain/operation.ts';
import type { Access } from './access.ts';
import type { RouteDocs } from './openapi.ts';

declare module 'fastify' {
  // The operation a route was derived from (http/operation-route.ts); the catalog test finds hand-written routes by its absence.
  interface FastifyContextConfig { operation?: Operation<any, any> }
}

export interface RouteRule {
  method: string;
  /** Fastify's pattern, e.g. `/v1/query/issues/:issue_id`. */
  url: string;
  access: Access;
  schema: FastifySchema | undefined;
  docs: RouteDocs | undefined;
  /** The catalog operation the route was derived from (http/operation-route.ts); undefined for a route written by hand. */
  operation: Operation<any, any> | undefined;
}

export interface RouteTable {
  /** The methods registered for a concrete path (405 handling). */
  methodsFor(path: string): string[];
  list(): { url: string; methods: string[] }[];
  /** One entry per method and pattern, with its access rule. Complete once the app is ready. */
  rules(): RouteRule[];
}

type Registered = Pick<RouteOptions, 'url' | 'schema' | 'config'>;

/**
 * Records every route as it is added. The access rules are read when the app is ready, after
 * every onRoute hook has run (a plugin scope may declare the rule of the routes a library
 * adds in it, as the docs scope does for Swagger UI); a route without one fails the start.
 */
export function collectRoutes(app: FastifyInstance): RouteTable {
  const patterns: { regex: RegExp; methods: Set<string> }[] = [];
  const byUrl = new Map<string, Set<string>>();
  const registered: { method: string; route: Registered }[] = [];
  let rules: RouteRule[] | null = null;

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let set = byUrl.get(route.url);
    if (!set) {
      set = new Set();
      byUrl.set(route.url, set);
      const source = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+').replace(/\\\*$/, '.*');
      patterns.push({ regex: new RegExp(`^${source}/?$`), methods: set });
    }
    for (const method of methods) {
      set.add(method);
      registered.push({ method, route });
    }
  });

  app.addHook('onReady', async () => {
    const unprotected = registered.filter(({ route }) => !route.config?.access).map(({ method, route }) => `${method} ${route.url}`);
    if (unprotected.length > 0) {
      throw new Error(`Routes without an access rule (declare config.access, { surface: 'public' } for an open route): ${unprotected.join(', ')}`);
    }
    rules = registered.map(({ method, route }) => ({
      method, url: route.url, access: route.config!.access!, schema: route.schema, docs: route.config!.docs, operation: route.config!.operation,
    }));
  });

  return {
    methodsFor(path: string): string[] {
      const out = new Set<string>();
      for (const p of patterns) if (p.regex.test(path)) for (const m of p.methods) out.add(m);
      return [...out];
    },
    list: () => [...byUrl].map(([url, methods]) => ({ url, methods: [...methods] })),
    rules(): RouteRule[] {
      if (!rules) throw new Error('The route table is complete only once the app is ready (await app.ready())');
      return rules;
    },
  };
}
