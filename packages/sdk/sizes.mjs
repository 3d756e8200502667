// What each detector costs in the script-tag build: its gzip size with every detector, less
// its size built without that one (the detector's file replaced by one that does nothing).
// Shared parts (what answers a click, the request watcher, the leg counter) stay in every build.
//   node sizes.mjs
import { readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { buildScriptTag } from './build.mjs';

const gz = async (without) => gzipSync(await buildScriptTag(without)).length;
const full = await gz([]);
console.log(`script-tag build: ${full} bytes gzip with every detector\n\n| detector file | bytes gzip |\n|---|---:|`);
const files = readdirSync(new URL('./src/detectors/', import.meta.url)).filter((f) => f.endsWith('.ts') && !['types.ts', 'legs.ts'].includes(f));
for (const file of files) console.log(`| ${file} | ${full - (await gz([file]))} |`);
