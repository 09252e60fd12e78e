import { IfGiven, Nested, Rule } from '@gen/contracts';
import { IsOptional } from 'class-validator';
import { HttpUrl, IsPlainObject, Origins } from '../common/binding-rules';
import { EnvName, UpstreamCallsDto } from '../common/binding.dto';

/**
 * A `remote` binding as operators write it (docs/operations/providers.md, "remote"); `parseRemoteEngineSettings`
 * validates with it and applies the defaults of `REMOTE_DEFAULTS`.
 */

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const isPath = (value: unknown) => typeof value === 'string' && value.startsWith('/');
const PathRule = () => Rule('path', isPath, 'must be a path starting with "/"');
const WithId = () => Rule('withId', (value) => typeof value === 'string' && value.includes('{id}'), 'must contain "{id}"');

export class RemoteAuthDto {
  @Rule('headerName', (value) => typeof value === 'string' && HEADER_NAME.test(value.trim()), 'must be an HTTP header name')
  header!: string;

  @EnvName('must name the environment variable holding the credential (A-Z, 0-9, _)')
  valueEnv!: string;

  @Rule('oneLine', (value) => typeof value === 'string' && !/[\r\n\0]/.test(value), 'must be a string on one line')
  prefix = '';

  /** Never given: a credential pasted where its variable's name belongs. */
  @IfGiven()
  @Rule('credential', () => false, '', {
    message: '$property: a credential is never stored in the catalogue; name its environment variable in auth.valueEnv',
  })
  value?: unknown;
}

export class RemoteBindingDto extends UpstreamCallsDto {
  @HttpUrl(true)
  baseUrl!: string;

  @IsOptional()
  @PathRule()
  submitPath?: string | null;

  @IsOptional()
  @PathRule()
  @WithId()
  statusPath?: string | null;

  @IsOptional()
  @PathRule()
  @WithId()
  cancelPath?: string | null;

  @IfGiven()
  @Rule('nonEmpty', (value) => typeof value === 'string' && value.trim() !== '', 'must be a non-empty string')
  upstreamModel?: string;

  @IsOptional()
  @Nested(() => RemoteAuthDto, { message: 'must be an object with "header" and "valueEnv"' })
  auth?: RemoteAuthDto | null;

  @IfGiven()
  @IsPlainObject('must be an object of static parameters')
  params?: Record<string, unknown>;

  @IfGiven()
  @Origins(false)
  outputOrigins?: string[];
}

