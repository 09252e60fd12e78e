import { IsIn } from 'class-validator';
import { HealthPingReply, SERVICE_NAMES, ServiceName } from '../shared/health';

/** A health ping (HealthSubjects) carries nothing; the transport does not check it. */
export class HealthPingRequest {}

export class HealthPingReplyPayload implements HealthPingReply {
  @IsIn(SERVICE_NAMES) service!: ServiceName;
  @IsIn(['ok']) status!: 'ok';
}
