/**
 * Input the dashboard refuses for what it is, not for what it says (control characters, a body over
 * the limit): answered by the error page (src/dashboard/router.ts) with this status, title and
 * message, before anything is read from or written to the database.
 */
export class RefusedInputError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}
