import { Type, type TSchema } from '@sinclair/typebox';

export interface ErrorBody {
  code: string;
  message: string;
  status: number;
  details?: Record<string, unknown>;
  duck?: string;
}

export const ok = <T>(data: T) => ({ data, error: null });

/** Response schema of a success: the data schema is an allow-list of what is sent. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ data, error: Type.Null() });

export const ErrorEnvelope = Type.Object({
  data: Type.Null(),
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    status: Type.Integer(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    duck: Type.Optional(Type.String()),
  }),
});
