import assert from 'node:assert/strict';
import type { NetworkInterfaceInfo } from 'node:os';
import { test } from 'node:test';
import { chooseListen, expandHostlist, hostfileHosts, parseListen, type ChooseInput } from './listen-address';

function v4(address: string, netmask: string, internal = false): NetworkInterfaceInfo {
  return { address, netmask, family: 'IPv4', mac: '00:00:00:00:00:00', internal, cidr: null };
}

const interfaces = {
  lo: [v4('127.0.0.1', '255.0.0.0', true)],
  eth0: [v4('10.1.2.3', '255.255.255.0')],
  br0: [v4('198.18.0.1', '255.254.0.0')],
};

function choose(more: Partial<ChooseInput>): ReturnType<typeof chooseListen> {
  return chooseListen({ hosts: [], addresses: new Map(), interfaces, localNames: ['vm'], ...more });
}

test('one machine: loopback, also when the hosts are this machine by name or address', () => {
  assert.deepEqual(choose({}), { bind: '127.0.0.1', advertise: '127.0.0.1', port: 0 });
  assert.equal(choose({ hosts: ['localhost', 'vm:4', '10.1.2.3', '127.0.0.1'] }).advertise, '127.0.0.1');
  const named = choose({ hosts: ['me'], addresses: new Map([['me', ['10.1.2.3']]]) });
  assert.equal(named.advertise, '127.0.0.1');
});

test("other hosts: the interface whose subnet holds every host's address, and that subnet", () => {
  const c = choose({
    hosts: ['h1', '198.19.5.6', 'vm'],
    addresses: new Map([['h1', ['198.18.0.2']]]),
  });
  assert.deepEqual(c, { bind: '198.18.0.1', advertise: '198.18.0.1', port: 0, subnet: '198.18.0.0/15' });
  assert.equal(choose({ hosts: ['10.1.2.77'] }).subnet, '10.1.2.0/24');
});

test('no interface shares a subnet with the hosts: a guess, said in a note naming --listen', () => {
  const c = choose({ hosts: ['far'], addresses: new Map([['far', ['192.0.2.9']]]) });
  assert.equal(c.subnet, undefined);
  assert.match(c.note ?? '', /--listen/);
  assert.throws(
    () =>
      chooseListen({
        hosts: ['192.0.2.9'],
        addresses: new Map(),
        interfaces: { lo: interfaces.lo },
        localNames: [],
      }),
    /no network interface besides loopback/,
  );
});

test('--listen wins; 0.0.0.0 binds every interface and still tells the ranks a reachable address', () => {
  assert.deepEqual(choose({ listen: { host: '10.1.2.3', port: 7700 }, hosts: ['198.18.0.2'] }), {
    bind: '10.1.2.3',
    advertise: '10.1.2.3',
    port: 7700,
  });
  const any = choose({ listen: { host: '0.0.0.0', port: 0 }, hosts: ['198.18.0.2'] });
  assert.equal(any.bind, '0.0.0.0');
  assert.equal(any.advertise, '198.18.0.1');
  assert.equal(choose({ listen: { port: 9000 } }).port, 9000);
});

test('parseListen: ADDR, ADDR:PORT, [v6]:PORT, :PORT; mistakes name the option', () => {
  assert.deepEqual(parseListen('10.0.0.5'), { host: '10.0.0.5', port: 0 });
  assert.deepEqual(parseListen('node1:7700'), { host: 'node1', port: 7700 });
  assert.deepEqual(parseListen('[fe80::1]:80'), { host: 'fe80::1', port: 80 });
  assert.deepEqual(parseListen('::1'), { host: '::1', port: 0 });
  assert.deepEqual(parseListen(':9000'), { port: 9000 });
  assert.throws(() => parseListen('a:99999'), /--listen a:99999: the port must be/);
  assert.throws(() => parseListen('bad host'), /neither an IP address nor a host name/);
});

test('host files of both launchers, and Slurm host lists', () => {
  assert.deepEqual(hostfileHosts('# nodes\nn1 slots=4\n\nn2:2  # second\n10.0.0.3\n'), [
    'n1',
    'n2',
    '10.0.0.3',
  ]);
  assert.deepEqual(expandHostlist('node[1-3,07],login,rack[01-02]x'), [
    'node1',
    'node2',
    'node3',
    'node07',
    'login',
    'rack01x',
    'rack02x',
  ]);
});
