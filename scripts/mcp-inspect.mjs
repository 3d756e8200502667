#!/usr/bin/env node
// The MCP Inspector's command-line client (the devDependency @modelcontextprotocol/inspector-cli),
// started so that it runs: `npm run -s mcp:inspect -- <url or command> --method ...` (docs/mcp.md,
// "Trying it"). Its 1.0.3 looks for its own package.json relative to the working directory, so
// its `.bin` launcher (`npx mcp-inspector-cli --cli ...`) fails from anywhere but its build
// folder; this starts it there. Everything after `--` is the inspector's own arguments, and
// the environment (MALLARD_URL, MALLARD_MCP_KEY for a stdio target) passes through.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const build = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build');
const child = spawn(process.execPath, [join(build, 'index.js'), ...process.argv.slice(2)], { cwd: build, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
