/**
 * The `infrakata` settings the server reads (docs/PROTOCOL.md), validated: a bad value gets a
 * message naming the key and the fix, and the default applies (the server does the same, but
 * the user should hear it where they typed it).
 */
import * as path from 'node:path';

export interface ServerSettings {
  gradeOn: 'save' | 'type';
  debounceMs: number;
  problemPaths: string[];
  watchFiles: boolean;
  isolation: 'best' | 'strict';
  /** The first failing case's values beside the code (inlay hints) and in the hover. */
  inlineValues: boolean;
}

export const DEFAULTS: Readonly<ServerSettings> = Object.freeze({
  gradeOn: 'save',
  debounceMs: 400,
  problemPaths: [],
  watchFiles: true,
  isolation: 'best',
  inlineValues: true,
});

/** One folder's `infrakata.problemPaths` (a resource-scoped setting). */
export interface ProblemPathsValue {
  /** Absolute path of the workspace folder it was read for; undefined outside any folder. */
  folder?: string;
  value: unknown;
}

export interface Validated {
  settings: ServerSettings;
  /** One line per bad value, naming the key and the fix. */
  problems: string[];
}

/**
 * @param window the window-scoped values as read (`undefined` when unset).
 * @param problemPaths each workspace folder's value; relative paths resolve against that folder.
 */
export function validateSettings(
  window: { gradeOn?: unknown; debounceMs?: unknown; watchFiles?: unknown; isolation?: unknown; inlineValues?: unknown },
  problemPaths: ProblemPathsValue[],
): Validated {
  const problems: string[] = [];
  const pick = <T>(key: string, value: unknown, ok: (v: unknown) => v is T, fix: string, fallback: T): T => {
    if (value === undefined || ok(value)) {
      return value ?? fallback;
    }
    problems.push(`infrakata.${key}: ${JSON.stringify(value)} is not valid; ${fix}. Using ${JSON.stringify(fallback)}.`);
    return fallback;
  };
  const settings: ServerSettings = {
    gradeOn: pick('gradeOn', window.gradeOn, isGradeOn, 'use "save" or "type"', DEFAULTS.gradeOn),
    debounceMs: pick('debounceMs', window.debounceMs, isDelay, 'use a whole number of milliseconds >= 0', DEFAULTS.debounceMs),
    watchFiles: pick('watchFiles', window.watchFiles, isBoolean, 'use true or false', DEFAULTS.watchFiles),
    isolation: pick('isolation', window.isolation, isIsolation, 'use "best" or "strict"', DEFAULTS.isolation),
    inlineValues: pick('inlineValues', window.inlineValues, isBoolean, 'use true or false', DEFAULTS.inlineValues),
    problemPaths: [],
  };
  const seen = new Set<string>();
  for (const { folder, value } of problemPaths) {
    const where = folder === undefined ? '' : ` (in ${folder})`;
    const paths = pick(`problemPaths${where}`, value, isStringArray, 'use a list of folder or JSON file paths', []);
    for (const p of paths) {
      const resolved = folder !== undefined && !path.isAbsolute(p) ? path.resolve(folder, p) : p;
      if (!seen.has(resolved)) {
        seen.add(resolved);
        settings.problemPaths.push(resolved);
      }
    }
  }
  return { settings, problems };
}

function isIsolation(v: unknown): v is ServerSettings['isolation'] {
  return v === 'best' || v === 'strict';
}

function isGradeOn(v: unknown): v is ServerSettings['gradeOn'] {
  return v === 'save' || v === 'type';
}

function isDelay(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

function isBoolean(v: unknown): v is boolean {
  return typeof v === 'boolean';
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((p) => typeof p === 'string' && p.trim() !== '');
}
