import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { validationMessages } from './validation-messages';

/**
 * A JSON value checked against a DTO class as the global ValidationPipe checks a request body (the
 * same options, the same one message per field), for bodies that do not arrive as a request's body:
 * the lines of a batch's file, each a `POST /api/v1/generate` body.
 */
export function validateAs<T extends object>(type: new () => T, value: unknown): { ok: true; value: T } | { ok: false; message: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'must be a JSON object' };
  const instance = plainToInstance(type, value);
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
  });
  if (errors.length === 0) return { ok: true, value: instance };
  return { ok: false, message: validationMessages(errors).join('; ') || 'The request body is not valid.' };
}
