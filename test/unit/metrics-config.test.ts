import assert from 'node:assert/strict';
import { loadConfig, SERVICE_ROLES } from '../../src/config';
import { METRICS_PORT_OFFSETS, metricsPortOf } from '../../src/observability/metrics-config';

describe('metrics settings: METRICS_PORT and METRICS_TOKEN', () => {
  it('gives every process npm start runs a port of its own, none without METRICS_PORT', () => {
    const ports = (['audits', 'reports', 'browser', 'api'] as const).map((kind) => metricsPortOf(9400, kind));
    assert.deepEqual(ports, [9400, 9401, 9402, 9403]);
    assert.equal(new Set(Object.values(METRICS_PORT_OFFSETS)).size, Object.keys(METRICS_PORT_OFFSETS).length);
    // One offset per worker kind (WORKER_KIND) and the API: every role of SERVICE_ROLES has its own.
    assert.equal(Object.keys(METRICS_PORT_OFFSETS).length, SERVICE_ROLES.length);
    assert.equal(metricsPortOf(0, 'api'), null);
    assert.equal(loadConfig({ METRICS_PORT: '65532' }).metricsPort, 65532);
    assert.throws(() => loadConfig({ METRICS_PORT: '65533' }), /METRICS_PORT must be at most 65532/);
  });

  it('takes a METRICS_TOKEN of 32 printable characters or more, and never repeats a refused one', () => {
    assert.equal(loadConfig({}).metricsToken, undefined);
    assert.equal(loadConfig({ METRICS_TOKEN: '' }).metricsToken, undefined);
    const token = '0123456789abcdef0123456789ABCDEF';
    assert.equal(loadConfig({ METRICS_TOKEN: token }).metricsToken, token);
    assert.equal(loadConfig({ METRICS_TOKEN: `${token}~!` }).metricsToken, `${token}~!`);
    for (const bad of [token.slice(1), `${token.slice(1)} `, `${token}\u00e9`, `${token}\t`, `Bearer ${token}`]) {
      assert.throws(
        () => loadConfig({ METRICS_TOKEN: bad }),
        (err: Error) => /^METRICS_TOKEN must be at least 32 printable/.test(err.message) && !err.message.includes(bad),
        JSON.stringify(bad),
      );
    }
  });
});
