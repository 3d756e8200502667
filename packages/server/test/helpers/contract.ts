// Every response a route test provokes is checked against the OpenAPI document the app serves:
// its status is one the operation lists, its body matches that status's schema, and an error's
// code is one the operation lists for that status. The harness records each answer (an onSend
// hook) and fails the suite on any mismatch, so the document cannot drift from the code.
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { App } from '../../src/app.ts';

const addFormats = (formatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

interface MediaType { schema?: unknown; examples?: Record<string, unknown> }
interface Response { content?: Record<string, MediaType>; $ref?: string }
interface Operation { responses: Record<string, Response> }
export interface OpenApiDocument { paths: Record<string, Record<string, Operation>>; components: { responses?: Record<string, Response> } }

export interface Answer { method: string; route: string; status: number; contentType: string; body: string }

/** The document's path for a Fastify route pattern: `/v1/issues/:issue_id` is `/v1/issues/{issue_id}`. */
export const openApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export class ContractChecker {
  readonly doc: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, 'openapi');
  }

  static async of(app: App): Promise<ContractChecker> {
    const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
    return new ContractChecker(res.json() as OpenApiDocument);
  }

  private response(op: Operation, status: number): Response | undefined {
    const found = op.responses[String(status)];
    if (found?.$ref) return this.doc.components.responses?.[found.$ref.split('/').pop()!];
    return found;
  }

  /** What is wrong with an answer, or null when the document describes it exactly. */
  check(answer: Answer): string | null {
    const path = openApiPath(answer.route);
    const op = this.doc.paths[path]?.[answer.method.toLowerCase()];
    if (!op) return null; // not an operation of the API (the dashboard's files, the reference's assets)
    const where = `${answer.method} ${path} ${answer.status}`;
    const response = this.response(op, answer.status);
    if (!response) return `${where}: status not documented (documented: ${Object.keys(op.responses).join(', ')})`;
    const isJson = /^application\/json/.test(answer.contentType);
    const mediaType = Object.keys(response.content ?? {}).find((t) => answer.contentType.startsWith(t));
    if (!isJson || answer.status === 204) return null;
    if (!mediaType) return `${where}: answered ${answer.contentType}, documented ${Object.keys(response.content ?? {}).join(', ') || 'no body'}`;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return `${where}: body is not JSON`;
    }
    const shared = op.responses[String(answer.status)].$ref?.split('/').pop();
    const at = shared ? ['components', 'responses', shared] : ['paths', path, answer.method.toLowerCase(), 'responses', String(answer.status)];
    const schemaRef = `openapi#/${pointer(...at, 'content', mediaType, 'schema')}`;
    let validate = this.validators.get(schemaRef);
    if (!validate) {
      validate = this.ajv.compile({ $ref: schemaRef });
      this.validators.set(schemaRef, validate);
    }
    if (!validate(body)) {
      const first = validate.errors?.[0];
      return `${where}: body does not match the schema: ${first?.instancePath || '/'} ${first?.message} ${JSON.stringify(first?.params)}`;
    }
    const code = (body as { error?: { code?: string } | null }).error?.code;
    if (code) {
      const codes = Object.keys(response.content?.[mediaType]?.examples ?? {});
      if (!codes.includes(code)) return `${where}: error code ${code} not documented for this status (documented: ${codes.join(', ')})`;
    }
    return null;
  }
}

/**
 * Records every answer of `app` (call before app.ready()); `violations()` checks them all against
 * the document the app serves.
 */
export function recordAnswers(app: App) {
  const answers: Answer[] = [];
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    if (route && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      answers.push({ method: request.method, route, status: reply.statusCode, contentType: String(reply.getHeader('content-type') ?? ''), body: String(payload) });
    }
    return payload;
  });
  return {
    answers,
    async violations(): Promise<string[]> {
      if (answers.length === 0) return [];
      const checker = await ContractChecker.of(app);
      return [...new Set(answers.map((a) => checker.check(a)).filter((v): v is string => v !== null))];
    },
  };
}
