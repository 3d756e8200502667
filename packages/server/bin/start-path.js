// Which code `mallard` runs: the compiled JavaScript in dist/ while it is at least as new as
// every source file, the TypeScript sources otherwise (or when MALLARD_FROM_SOURCE=1).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** @returns {'dist' | 'source'} */
export function startPath(root, env = process.env) {
  if (env.MALLARD_FROM_SOURCE === '1') return 'source';
  let built;
  try { built = statSync(join(root, 'dist', 'BUILT')).mtimeMs; } catch { return 'source'; }
  const src = join(root, 'src');
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(src, file));
    // Files only: a folder's time changes with editors' temporary files.
    if (stat.isFile() && stat.mtimeMs > built) return 'source';
  }
  return 'dist';
}
