/** The largest request body the service accepts (contract.md: 1 MiB). No imports: the CLI's batch reader uses it too. */
export const MAX_BODY_BYTES = 1024 * 1024;
