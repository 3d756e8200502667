// bin/mallard.js runs dist/ only while it is as new as every source file.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, no declarations
import { startPath } from '../bin/start-path.js';

const roots: string[] = [];
afterEach(() => { for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true }); });

function checkout({ built }: { built: boolean }) {
  const root = mkdtempSync(join(tmpdir(), 'mallard-start-path-'));
  roots.push(root);
  mkdirSync(join(root, 'src', 'store'), { recursive: true });
  writeFileSync(join(root, 'src', 'main.ts'), '');
  writeFileSync(join(root, 'src', 'store', 'db.ts'), '');
  const old = new Date('2026-01-01T00:00:00Z');
  utimesSync(join(root, 'src', 'main.ts'), old, old);
  utimesSync(join(root, 'src', 'store', 'db.ts'), old, old);
  if (built) {
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist', 'BUILT'), '');
    const later = new Date('2026-01-02T00:00:00Z');
    utimesSync(join(root, 'dist', 'BUILT'), later, later);
  }
  return root;
}

describe('start path', () => {
  it('runs the build when no source file is newer', () => {
    expect(startPath(checkout({ built: true }), {})).toBe('dist');
  });

  it('runs the sources without a build', () => {
    expect(startPath(checkout({ built: false }), {})).toBe('source');
  });

  it('runs the sources once any file, however deep, is edited after the build', () => {
    const root = checkout({ built: true });
    const edited = new Date('2026-01-03T00:00:00Z');
    utimesSync(join(root, 'src', 'store', 'db.ts'), edited, edited);
    expect(startPath(root, {})).toBe('source');
  });

  it('runs the sources when MALLARD_FROM_SOURCE=1', () => {
    expect(startPath(checkout({ built: true }), { MALLARD_FROM_SOURCE: '1' })).toBe('source');
  });
});
