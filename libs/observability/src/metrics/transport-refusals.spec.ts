import { Test } from '@nestjs/testing';
import { Subjects } from '@gen/contracts';
import { InProcessBus, TransportModule } from '@gen/transport';
import { ObservabilityModule } from '../observability.module';
import { MetricsRegistry } from './metrics-registry';

describe("the transport's refused messages in the process's metrics", () => {
  it('are served with the rest, by subject and reason', async () => {
    const bus = new InProcessBus();
    const moduleRef = await Test.createTestingModule({
      imports: [
        ObservabilityModule.forRoot({ service: 'spec', logging: { level: 'silent' }, defaultMetrics: false }),
        TransportModule.forRoot({ kind: 'in-process', bus }),
      ],
    }).compile();
    try {
      bus.refusals.count(Subjects.billingBalance, 'invalid', ['accountId must be a string']);
      const text = await moduleRef.get(MetricsRegistry).metrics();
      expect(text).toContain(`gen_transport_messages_refused_total{subject="${Subjects.billingBalance}",reason="invalid",service="spec"} 1`);
    } finally {
      await moduleRef.close();
    }
  });
});
