// npm run client:types -w @mallard/server: rewrites test/client/api.d.ts from the served document.
import { writeFileSync } from 'node:fs';
import { API_TYPES_FILE, generateApiTypes } from './types.ts';

writeFileSync(API_TYPES_FILE, await generateApiTypes());
console.log(`wrote ${API_TYPES_FILE.pathname}`);
