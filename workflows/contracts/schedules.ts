/** The daily retention Schedule; also the workflow id of each run it starts. */
export const PRUNE_SCHEDULE_ID = 'prune-expired-data';
