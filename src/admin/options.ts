import { InvalidArgumentError } from 'commander';
import { TIERS, MODES, type Mode, type Tier } from '../schemas/audit';

/** Parsers of the operator CLI's option values: a bad value fails with commander's usage error. */

export const tierOption = (value: string): Tier => {
  if (!(TIERS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${TIERS.join(', ')}`);
  return value as Tier;
};
export const modeOption = (value: string): Mode => {
  if (!(MODES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${MODES.join(', ')}`);
  return value as Mode;
};
export const countOption = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
