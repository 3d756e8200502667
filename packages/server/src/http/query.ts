// What every /query route shares: its access rule.
export const QUERY_ACCESS = { surface: 'query', scopes: ['query:read', 'mcp:read'], role: 'viewer' } as const;
