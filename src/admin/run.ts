import { loadConfig, type Config } from '../config';
import { createDb, migrateLatest, type Db } from '../db/knex';
import { openDatabase } from '../db/open';
import { NotFoundError } from '../accounts/repository';
import { ApiError } from '../errors';

/**
 * Runs one operator command against a migrated database and prints its result as text or, with
 * --json, as one JSON object (errors too, with a code); a failure sets the exit code to 1.
 */
export async function run(
  json: boolean | undefined,
  action: (db: Db, config: Config) => Promise<{ json: object; text: string }>,
): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config, { startEmbedded: true });
  const db = createDb(database.url, { max: 2 });
  try {
    await migrateLatest(db);
    const result = await action(db, config);
    process.stdout.write(json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // The service modules refuse with the API's codes (tier_required, invalid_request, …).
    const code = err instanceof NotFoundError ? 'not_found' : err instanceof ApiError ? err.code : 'invalid_request';
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  } finally {
    await db.destroy();
    await database.close();
  }
}
