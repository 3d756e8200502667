// The request schemas the server publishes (GET /v1/openapi.json, public, the same document
// /docs renders): the settings forms check their bodies against them before sending, so a
// bound lives in one place, the server's TypeBox schema. Fetched once per page load.
import type { JsonSchema } from '../lib/schema-check.ts';

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
}

let document: Promise<OpenApiDocument> | null = null;

function load(): Promise<OpenApiDocument> {
  document ??= fetch('/v1/openapi.json', { credentials: 'omit' }).then(async (res) => {
    if (!res.ok) throw new Error(`the API description answered ${res.status}`);
    return await res.json() as OpenApiDocument;
  });
  // A failed fetch is tried again next time rather than remembered.
  document.catch(() => { document = null; });
  return document;
}

/**
 * The JSON body schema of an operation, by its documented path (`/v1/manage/alert-rules`) and
 * method; null when the document cannot be read (the API still checks every body).
 */
export async function requestSchema(method: string, path: string): Promise<JsonSchema | null> {
  try {
    const doc = await load();
    return doc.paths[path]?.[method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema ?? null;
  } catch {
    return null;
  }
}
