/*
 * What `doctor` is asked to do, as one typed value: command.ts makes it from argv, run.ts does
 * it. The flags that choose the settings checked (--profile, --base-url, --timeout) reach it as
 * its settings dep.
 */
export interface DoctorOptions {
  json: boolean;
  noColor: boolean;
}
