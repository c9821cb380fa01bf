import type { Session } from '../session.js';
import { getSetting, listProfiles, setSetting, unsetSetting, useProfile, type SettingKey } from './config-commands.js';
import { forgetProfileKey } from '../credentials/profile-keys.js';

/*
 * `fraudctl config …` as the user sees it: which profile a verb acts on, and what it prints.
 * The reading and writing of the file is config-commands.ts's.
 */

function targetProfile(session: Session): string {
  const { globals, context } = session;
  return globals.profile || context.env.FRAUDCTL_PROFILE || (listProfiles(context.env).find((p) => p.active)?.name ?? 'default');
}

export async function listConfig(session: Session): Promise<void> {
  const profiles = listProfiles(session.context.env, session.globals.profile);
  const output = await session.output();
  if (output.json) return output.printJson(profiles);
  const { renderProfiles } = await import('../render/profile-table.js');
  output.print(renderProfiles(profiles, output.style));
}

export async function getConfig(session: Session, key: string): Promise<void> {
  const output = await session.output();
  output.print(getSetting(session.context.env, targetProfile(session), key as SettingKey));
}

export async function setConfig(session: Session, key: string, value: string): Promise<void> {
  const profile = targetProfile(session);
  setSetting(session.context.env, profile, key as SettingKey, value);
  (await session.output()).note(`profile "${profile}": ${key} set`);
}

export async function unsetConfig(session: Session, key: string): Promise<void> {
  const profile = targetProfile(session);
  // The key goes from wherever it is kept, as with logout.
  if (key === 'api-key') await forgetProfileKey(session.context.env, profile);
  else unsetSetting(session.context.env, profile, key as SettingKey);
  (await session.output()).note(`profile "${profile}": ${key} removed`);
}

export async function useConfig(session: Session, profile: string): Promise<void> {
  useProfile(session.context.env, profile);
  (await session.output()).note(`profile "${profile}" is now the active one`);
}
