// What every /query route shares: its access rule.
import { READ_ACCESS } from '../domain/operation.ts';
export const QUERY_ACCESS = { surface: 'query', ...READ_ACCESS } as const;
