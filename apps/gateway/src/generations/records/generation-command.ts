/** What every use case of one generation is given: the caller's account (every read and change is scoped by it) and the id. */
export interface GenerationCommand {
  accountId: string;
  jobId: string;
}
