// One error type with a stable code; one table maps codes to HTTP statuses.
export const ERROR_STATUS = {
  invalid_input: 400,
  sso_discovery_failed: 400,
  invalid_uuid: 400,
  missing_site_id: 400,
  invalid_status: 400,
  empty_body: 400,
  invalid_json: 400,
  missing_auth: 401,
  invalid_key: 401,
  expired_key: 401,
  invalid_jwt: 401,
  invalid_token: 401,
  jwt_required: 401,
  invalid_credentials: 401,
  mfa_required: 401,
  invalid_otp: 401,
  forbidden: 403,
  missing_scope: 403,
  insufficient_role: 403,
  org_scope_required: 403,
  sso_required: 403,
  csrf_failed: 403,
  mfa_required_by_org: 403,
  mfa_enrolment_required: 403,
  not_found: 404,
  sso_not_configured: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_conflict: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  account_locked: 429,
  headers_too_large: 431,
  internal_error: 500,
  upstream_error: 502,
  unavailable: 503,
  storage_full: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
  }
}

export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found`);
export const invalidInput = (field: string, reason: string) =>
  new AppError('invalid_input', `${field}: ${reason}`, { field, reason });
