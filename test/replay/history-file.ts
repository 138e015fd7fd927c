import fs from 'node:fs';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
const { History } = temporal.api.history.v1;

// Plain protobuf object form (64-bit numbers and enums as strings, bytes as base64). The SDK's own
// historyToJSON/historyFromJSON fail with the protobufjs copies this lockfile installs.
const AS_JSON = { longs: String, enums: String, bytes: String, defaults: false } as const;

export function writeHistoryFile(file: string, history: History): void {
  fs.writeFileSync(file, `${JSON.stringify(History.toObject(History.fromObject(history), AS_JSON))}\n`);
}

export function readHistoryFile(file: string): History {
  return History.fromObject(JSON.parse(fs.readFileSync(file, 'utf8')));
}
