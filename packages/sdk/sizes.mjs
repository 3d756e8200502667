// What each detector costs in the script-tag build: its gzip size with every detector, less
// its size built without that one (the detector's file replaced by one that does nothing).
// Shared parts (what answers a click, the request watcher, the leg counter) stay in every build.
// Also the clips chunk's size; exits 1 when either build is over its budget.
//   node sizes.mjs
import { readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { budgets, buildClips, buildScriptTag } from './build.mjs';

const gz = async (without) => gzipSync(await buildScriptTag(without)).length;
const full = await gz([]);
const clips = gzipSync(await buildClips()).length;
console.log(`script-tag build: ${full} bytes gzip with every detector (budget ${budgets.core})`);
console.log(`clips chunk: ${clips} bytes gzip (budget ${budgets.clips})`);
if (full > budgets.core || clips > budgets.clips) {
  console.error('over budget');
  process.exitCode = 1;
}
console.log('\n| detector file | bytes gzip |\n|---|---:|');
const files = readdirSync(new URL('./src/detectors/', import.meta.url)).filter((f) => f.endsWith('.ts') && !['types.ts', 'legs.ts'].includes(f));
for (const file of files) console.log(`| ${file} | ${full - (await gz([file]))} |`);
