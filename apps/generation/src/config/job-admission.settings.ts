/** DI token of the admission queue's settings (JobAdmissionSettings). */
export const JOB_ADMISSION_SETTINGS = Symbol('JOB_ADMISSION_SETTINGS');

export interface JobAdmissionSettings {
  /** Admissions written by one statement and one commit at most (JOB_ADMIT_BATCH). */
  maxBatch: number;
}

export const DEFAULT_JOB_ADMISSION_SETTINGS: JobAdmissionSettings = { maxBatch: 100 };
