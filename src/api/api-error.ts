import { ERROR_CATALOG, type ErrorCode } from './error-catalog';

/** An error the API answers with its envelope; anything else thrown becomes internal_error. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message);
    this.status = status ?? ERROR_CATALOG[code].status;
  }
}
