// A Java service on curator-x-discovery 5.4 for zkrecipes' interop tests:
// it registers instances and watches services on a base path shared with
// Go processes, and prints what it sees.
//
// Usage: CuratorDiscovery CONNECT SESSION_MS BASE CTL PAYLOAD(String|Details) SERIALIZER(default|full) ACTION...
// Actions, in order:
//   reg NAME ID PORT PAYLOAD ENABLED   register an instance (PAYLOAD: the
//                                      string, or for Details "host:weight";
//                                      "-" for null)
//   watch NAME                         a ServiceCache and a ServiceProvider
//                                      (round robin) of NAME
// Then it prints "curator: ready" and, for each watched NAME, once at the
// start and again on every cacheChanged:
//   view NAME JSON...      the cache's instances, each as full JSON, sorted by id
//   query NAME JSON...     queryForInstances(NAME), the same way
// and, at the start and whenever it changes (polled every 50 ms: the
// provider's own cache has no listener):
//   provider NAME IDS...   the provider's getAllInstances ids, sorted
// It stops when the node CTL exists: with data "close" it closes the
// discovery (which unregisters its instances) and the client, and prints
// "curator: closed"; with "crash" it exits at once, leaving its session to
// expire.
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceProvider;
import org.apache.curator.x.discovery.UriSpec;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;
import org.apache.curator.x.discovery.details.ServiceCacheListener;

public class CuratorDiscovery {
    /** A payload class of the Java service's own. */
    public static class Details {
        private String host;
        private int weight;
        public Details() {}
        public Details(String host, int weight) { this.host = host; this.weight = weight; }
        public String getHost() { return host; }
        public void setHost(String host) { this.host = host; }
        public int getWeight() { return weight; }
        public void setWeight(int weight) { this.weight = weight; }
    }

    static JsonInstanceSerializer<Object> fullJson = new JsonInstanceSerializer<>(Object.class, false);

    static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void main(String[] args) throws Exception {
        String connect = args[0], base = args[2], ctl = args[3], payloadKind = args[4], ser = args[5];
        int sessionMs = Integer.parseInt(args[1]);
        Class payloadClass = payloadKind.equals("Details") ? Details.class : String.class;
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, sessionMs, 5000, new ExponentialBackoffRetry(100, 10));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        ServiceDiscoveryBuilder builder = ServiceDiscoveryBuilder.builder(payloadClass).client(cf).basePath(base);
        if (ser.equals("full")) {
            builder.serializer(new JsonInstanceSerializer(payloadClass, false));
        }
        ServiceDiscovery discovery = builder.build();
        discovery.start();
        List<Runnable> printers = new ArrayList<>();
        Map<String, ServiceProvider> providers = new TreeMap<>();
        Map<String, String> printed = new HashMap<>();
        for (int i = 6; i < args.length; ) {
            switch (args[i]) {
                case "reg": {
                    String name = args[i + 1], id = args[i + 2], p = args[i + 4];
                    int port = Integer.parseInt(args[i + 3]);
                    boolean enabled = Boolean.parseBoolean(args[i + 5]);
                    Object payload = null;
                    if (!p.equals("-")) {
                        if (payloadKind.equals("Details")) {
                            String[] hw = p.split(":");
                            payload = new Details(hw[0], Integer.parseInt(hw[1]));
                        } else {
                            payload = p;
                        }
                    }
                    ServiceInstance inst = ServiceInstance.builder().name(name).id(id).port(port).payload(payload)
                        .uriSpec(new UriSpec("{scheme}://{address}:{port}/" + id)).enabled(enabled).build();
                    discovery.registerService(inst);
                    i += 6;
                    break;
                }
                case "watch": {
                    String name = args[i + 1];
                    ServiceCache cache = discovery.serviceCacheBuilder().name(name).build();
                    ServiceProvider provider = discovery.serviceProviderBuilder().serviceName(name).build();
                    Runnable printer = () -> {
                        try {
                            List<ServiceInstance> l = new ArrayList<>(cache.getInstances());
                            l.sort(Comparator.comparing(ServiceInstance::getId));
                            StringBuilder b = new StringBuilder("view " + name);
                            for (ServiceInstance si : l) {
                                b.append(' ').append(new String(fullJson.serialize(si), StandardCharsets.UTF_8));
                            }
                            print(b.toString());
                            List<ServiceInstance> q = new ArrayList<>(discovery.queryForInstances(name));
                            q.sort(Comparator.comparing(ServiceInstance::getId));
                            b = new StringBuilder("query " + name);
                            for (ServiceInstance si : q) {
                                b.append(' ').append(new String(fullJson.serialize(si), StandardCharsets.UTF_8));
                            }
                            print(b.toString());
                        } catch (Exception e) {
                            print("error " + e);
                        }
                    };
                    cache.addListener(new ServiceCacheListener() {
                        @Override public void cacheChanged() { printer.run(); }
                        @Override public void stateChanged(CuratorFramework c, ConnectionState s) {}
                    });
                    cache.start();
                    provider.start();
                    printers.add(printer);
                    providers.put(name, provider);
                    i += 2;
                    break;
                }
                default:
                    throw new IllegalArgumentException(args[i]);
            }
        }
        print("curator: ready");
        for (Runnable r : printers) {
            r.run();
        }
        while (true) {
            // A provider has a cache of its own, with no listener: its
            // instances are printed whenever they differ from the last print.
            for (Map.Entry<String, ServiceProvider> e : providers.entrySet()) {
                List<String> ids = new ArrayList<>();
                for (Object o : (Collection) e.getValue().getAllInstances()) {
                    ids.add(((ServiceInstance) o).getId());
                }
                ids.sort(null);
                String line = "provider " + e.getKey() + (ids.isEmpty() ? "" : " " + String.join(" ", ids));
                if (!line.equals(printed.get(e.getKey()))) {
                    printed.put(e.getKey(), line);
                    print(line);
                }
            }
            try {
                if (cf.checkExists().forPath(ctl) != null) {
                    break;
                }
            } catch (Exception e) {
                // not connected: look again
            }
            Thread.sleep(50);
        }
        String how = new String(cf.getData().forPath(ctl), StandardCharsets.UTF_8);
        if (how.equals("crash")) {
            Runtime.getRuntime().halt(0);
        }
        discovery.close();
        cf.close();
        print("curator: closed");
    }
}
