// npm run client:types -w @mallard/server: rewrites test/client/api.d.ts and the dashboard's
// src/api/openapi.d.ts from the served document (the same text in both).
import { mkdirSync, writeFileSync } from 'node:fs';
import { API_TYPES_FILE, DASHBOARD_API_TYPES_FILE, generateApiTypes } from './types.ts';

const text = await generateApiTypes();
for (const file of [API_TYPES_FILE, DASHBOARD_API_TYPES_FILE]) {
  mkdirSync(new URL('.', file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${file.pathname}`);
}
