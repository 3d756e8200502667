// The ticket operation's schemas: which tracker, and the ticket it made.
import { Type } from '@sinclair/typebox';

export const TicketParams = Type.Object({ issue_id: Type.String() });
export const CreateTicketBody = Type.Object({ provider: Type.Optional(Type.Union([Type.Literal('linear'), Type.Literal('github')])) }, { additionalProperties: false });
export const TicketRecord = Type.Object({ issue_id: Type.String(), provider: Type.String(), ticket_id: Type.String(), url: Type.String() });
