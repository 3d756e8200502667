// npm run client:types -w @mallard/server: rewrites the dashboard's src/api/openapi.d.ts (which
// this test client imports too) from the served document.
import { mkdirSync, writeFileSync } from 'node:fs';
import { API_TYPES_FILE, generateApiTypes } from './types.ts';

mkdirSync(new URL('.', API_TYPES_FILE), { recursive: true });
writeFileSync(API_TYPES_FILE, await generateApiTypes());
console.log(`wrote ${API_TYPES_FILE.pathname}`);
