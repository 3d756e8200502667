// Deploys: the list, one deploy, the post-deploy check, and the two timeline writes (record a
// deploy, add an annotation).
import { checkDeployOp, deployDetailOp, listDeploysOp, recordDeployOnceOp } from '../../features/deploys/operations.ts';
import { addAnnotationOnceOp } from '../../features/annotations/operations.ts';
import { defineTool } from '../tool-kit.ts';
import { bullets, lines, plural, signed } from '../text.ts';

const deployLine = (d: { version: string; environment: string; deployed_at: string; confusion_before: number; confusion_after: number | null; delta: number | null; id: string }) =>
  `${d.version} (${d.environment}, ${d.deployed_at}): site score ${d.confusion_before} -> ${d.confusion_after ?? 'pending'}${d.delta === null ? '' : ` (${signed(d.delta)})`}; id ${d.id}`;

export const listDeploysTool = defineTool({
  name: 'list_deploys',
  operation: listDeploysOp,
  title: 'Deploys',
  description: 'Deploys, newest first, with the site score before and after each (null until scored) and delta (positive: worse).',
  argumentNotes: { environment: null },
  links: [{ at: 'deploys[]', kind: 'deploy' }],
  summarize: (d) => d.total === 0 ? 'No deploys recorded.' : lines(`${plural(d.total, 'deploy')}:`, bullets(d.deploys, deployLine, 'deploys on this page of results')),
});

/** The per-page lists in a line: how many pages were scored before and after, and the biggest rises (a page not scored before counts from 0). */
function pagesLine(d: { pages_before: { page: string; score: number }[]; pages_after: { page: string; score: number }[] | null }): string {
  if (d.pages_after === null) return `${plural(d.pages_before.length, 'page')} scored before the deploy; none after it yet (pending).`;
  const before = new Map(d.pages_before.map((p) => [p.page, p.score]));
  const rises = d.pages_after.map((p) => ({ page: p.page, delta: Math.round((p.score - (before.get(p.page) ?? 0)) * 10) / 10 }))
    .sort((a, b) => b.delta - a.delta || a.page.localeCompare(b.page)).slice(0, 3);
  return `${plural(d.pages_before.length, 'page')} scored before the deploy, ${d.pages_after.length} after${rises.length ? `; biggest rises: ${rises.map((r) => `${r.page} ${signed(r.delta)}`).join(', ')}` : ''}.`;
}

export const getDeployTool = defineTool({
  name: 'get_deploy',
  operation: deployDetailOp,
  title: 'One deploy',
  description: 'One deploy: page scores before and after, issues that appeared after it (first) or were verified against it.',
  listedFields: ['id', 'version', 'environment', 'deployed_at', 'commit_sha', 'confusion_before', 'confusion_after', 'delta', 'pages_before', 'pages_after', 'related_issues', 'dashboard_url'],
  argumentNotes: { deploy_id: null },
  links: [{ at: '', kind: 'deploy' }, { at: 'related_issues[]', kind: 'issue' }],
  summarize: (d) => lines(
    deployLine(d),
    d.related_issues.length > 0 && 'Related issues:',
    bullets(d.related_issues, (i) => `[${i.severity}] ${i.title} (${i.relation}${i.verification_result ? `: ${i.verification_result}` : ''}; id ${i.id})`, 'related issues'),
    pagesLine(d),
  ),
});

export const checkDeployTool = defineTool({
  name: 'check_deploy',
  operation: checkDeployOp,
  title: 'Post-deploy check',
  description: 'Did the last deploy make anything worse? Mallard\'s verdict per page and overall with reasons: FAIL if a page rose 15+ or a critical issue appeared, WARN at 5+ or a high one, else PASS (PENDING until scored).',
  argumentNotes: { deploy_id: null, environment: 'without deploy_id: its latest deploy' },
  links: [{ at: 'deploy', kind: 'deploy' }, { at: 'new_critical_issues[]', kind: 'issue' }, { at: 'new_high_issues[]', kind: 'issue' }],
  summarize: (d) => lines(
    `${d.verdict}: deploy ${deployLine(d.deploy)}.`,
    bullets(d.reasons, (r) => r, 'reasons', d.reasons.length, 15),
    d.pages.length > 0 && `${plural(d.pages.length, 'page')} scored after the deploy; biggest rises: ${d.pages.slice(0, 3).map((p) => `${p.page} ${signed(p.delta)}`).join(', ')}.`,
    [...d.new_critical_issues, ...d.new_high_issues].length > 0 && 'New issues since the deploy:',
    bullets([...d.new_critical_issues, ...d.new_high_issues], (i) => `[${i.severity}] ${i.title} on ${i.page} (id ${i.id})`, 'new issues'),
  ),
});

export const recordDeployTool = defineTool({
  name: 'record_deploy',
  operation: recordDeployOnceOp,
  title: 'Record a deploy',
  description: 'Record a deploy as CI would, then check it with check_deploy.',
  argumentNotes: {
    version: null, environment: 'default production', deployed_at: 'ISO 8601 (default now)', commit_sha: null, author: null, pr_number: null, provider: null, url: null,
    description: 'what changed',
  },
  listedFields: ['id', 'version', 'environment', 'deployed_at', 'confusion_before', 'already_recorded', 'dashboard_url'],
  links: [{ at: '', kind: 'deploy' }],
  summarize: (d) => `${d.already_recorded ? 'Already recorded within 10 minutes (not recorded again): deploy' : 'Recorded deploy'} ${deployLine(d)}.`,
});

export const addAnnotationTool = defineTool({
  name: 'add_annotation',
  operation: addAnnotationOnceOp,
  title: 'Add an annotation',
  description: 'Add a note to the site\'s (or a page\'s) timeline, e.g. what a check found.',
  argumentNotes: { message: null, page: 'omit it for a site-wide note' },
  summarize: (d) => `${d.repeated ? 'Already added within 10 minutes (not added again): annotation' : 'Annotation added'}${d.page ? ` on ${d.page}` : ''} at ${d.created_at}: ${d.message}`,
});

export const DEPLOY_TOOLS = [listDeploysTool, getDeployTool, checkDeployTool, recordDeployTool, addAnnotationTool];
