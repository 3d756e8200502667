// The consent screen's choices: the least it starts with, an org change, the body sent, and how
// the place the code goes is named.
import { describe, expect, it } from 'vitest';
import { approveBody, initialChoice, redirectSummary, withOrg, type ConsentDetails } from '../src/lib/oauth-consent.ts';

const details: ConsentDetails = {
  uid: 'u1', expires_at: '2026-11-28T10:00:00.000Z',
  client: { client_id: 'c1', name: 'Claude Code', redirect_uri: 'http://localhost:53682/callback' },
  orgs: [
    { id: 'o1', name: 'Shop', role: 'viewer', may_write: false, sites: [{ id: 's1', name: 'Shop', url: 'https://shop.example' }] },
    { id: 'o2', name: 'Docs', role: 'admin', may_write: true, sites: [] },
  ],
};

describe('OAuth consent choices', () => {
  it('starts in the signed-in org, on every site, read only; else in the first org', () => {
    expect(initialChoice(details, 'o2')).toEqual({ org: 'o2', site: '', access: 'read' });
    expect(initialChoice(details, 'elsewhere')).toEqual({ org: 'o1', site: '', access: 'read' });
    expect(initialChoice({ ...details, orgs: [] }, null)).toEqual({ org: '', site: '', access: 'read' });
  });

  it('a change of org resets the site and keeps write only where the role allows it', () => {
    expect(withOrg(details, { org: 'o2', site: 's9', access: 'write' }, 'o1')).toEqual({ org: 'o1', site: '', access: 'read' });
    expect(withOrg(details, { org: 'o1', site: 's1', access: 'write' }, 'o2')).toEqual({ org: 'o2', site: '', access: 'write' });
  });

  it('sends every site as null and one site by its id', () => {
    expect(approveBody({ org: 'o1', site: '', access: 'read' })).toEqual({ org_id: 'o1', site_id: null, access: 'read' });
    expect(approveBody({ org: 'o1', site: 's1', access: 'write' })).toEqual({ org_id: 'o1', site_id: 's1', access: 'write' });
  });

  it('names where the code goes: this computer for loopback, else the host', () => {
    expect(redirectSummary('http://localhost:53682/callback')).toBe('an application on this computer (localhost:53682)');
    expect(redirectSummary('http://127.0.0.1:9/cb')).toBe('an application on this computer (127.0.0.1:9)');
    expect(redirectSummary('https://editor.example/oauth/cb')).toBe('editor.example');
    expect(redirectSummary('cursor://anysphere.cursor-retrieval/oauth/callback')).toBe('the application registered for cursor: links');
    expect(redirectSummary('not a url')).toBe('not a url');
  });
});
