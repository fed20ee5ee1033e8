// Prints what curator-x-discovery 5.4's JsonInstanceSerializer writes, and
// reads what Go wrote, for zkrecipes' JSON compatibility tests.
//
// Usage: CuratorSerialize write
//   prints one line per case: "case NAME BASE64" (BASE64 is the serialized
//   instance, exactly the bytes Curator puts in the node).
// Usage: CuratorSerialize read PAYLOADKIND BASE64...
//   deserializes each instance with JsonInstanceSerializer(PAYLOADKIND:
//   String|Void|Object|Payload) and prints "read " + a canonical description
//   of its fields, or "read error CLASS" when Curator refuses it.
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceType;
import org.apache.curator.x.discovery.UriSpec;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;

public class CuratorSerialize {
    /** A payload class, as a Java service would have one. */
    public static class Payload {
        private String val;
        private int weight;
        public Payload() {}
        public Payload(String val, int weight) { this.val = val; this.weight = weight; }
        public String getVal() { return val; }
        public void setVal(String val) { this.val = val; }
        public int getWeight() { return weight; }
        public void setWeight(int weight) { this.weight = weight; }
        @Override public String toString() { return "Payload{val=" + val + ",weight=" + weight + "}"; }
    }

    static <T> void write(String name, JsonInstanceSerializer<T> s, ServiceInstance<T> inst) throws Exception {
        System.out.println("case " + name + " " + Base64.getEncoder().encodeToString(s.serialize(inst)));
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("write")) {
            UriSpec spec = new UriSpec("{scheme}://{address}:{port}/{[}x{]}/v1");
            write("string", new JsonInstanceSerializer<>(String.class),
                new ServiceInstance<String>("test", "id-1", "10.0.0.5", 10064, null, "thing", 1700000000123L, ServiceType.DYNAMIC, null));
            write("void", new JsonInstanceSerializer<>(Void.class),
                new ServiceInstance<Void>("test", "id-2", null, null, null, null, 0, ServiceType.STATIC, spec));
            write("class", new JsonInstanceSerializer<>(Payload.class),
                new ServiceInstance<Payload>("api", "id-3", "h", 80, 443, new Payload("v", 7), 5, ServiceType.PERMANENT, spec));
            write("disabled-full", new JsonInstanceSerializer<>(String.class, false),
                new ServiceInstance<String>("test", "id-4", "a", 1, 2, "p", 9, ServiceType.DYNAMIC_SEQUENTIAL, null, false));
            write("enabled-full", new JsonInstanceSerializer<>(Void.class, false),
                new ServiceInstance<Void>("test", "id-5", "a", null, null, null, 9, ServiceType.DYNAMIC, null, true));
            List<String> list = new ArrayList<>();
            list.add("Test value 1");
            list.add("Test value 2");
            write("list", new JsonInstanceSerializer<>(Object.class),
                new ServiceInstance<Object>("test", "id-6", "a", 1, null, list, 0, ServiceType.DYNAMIC, null));
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("1", "Test value 1");
            map.put("n", 2);
            write("map", new JsonInstanceSerializer<>(Object.class),
                new ServiceInstance<Object>("test", "id-7", "a", 1, null, map, 0, ServiceType.DYNAMIC, null));
            write("long", new JsonInstanceSerializer<>(Object.class),
                new ServiceInstance<Object>("test", "id-8", "a", 1, null, 42L, 0, ServiceType.DYNAMIC, null));
            write("int", new JsonInstanceSerializer<>(Object.class),
                new ServiceInstance<Object>("test", "id-9", "a", 1, null, 42, 0, ServiceType.DYNAMIC, null));
            write("text", new JsonInstanceSerializer<>(String.class),
                new ServiceInstance<String>("t\u00e9st", "id \"q\" \\ <&>", "a\tb\n\u0001\u001f\u007f\u2028\ud83d\ude00", 8, 65535, "\b\f\r", -1, null, new UriSpec("")));
            // Zero port and empty address: Go reads them as its zero values,
            // which it writes as null.
            write("zero", new JsonInstanceSerializer<>(Void.class),
                new ServiceInstance<Void>("test", "id-10", "", 0, 0, null, 0, ServiceType.DYNAMIC, null));
            System.out.println("curator: done");
            return;
        }
        String kind = args[1];
        JsonInstanceSerializer<?> s;
        switch (kind) {
            case "String": s = new JsonInstanceSerializer<>(String.class); break;
            case "Void": s = new JsonInstanceSerializer<>(Void.class); break;
            case "Object": s = new JsonInstanceSerializer<>(Object.class); break;
            case "Payload": s = new JsonInstanceSerializer<>(Payload.class); break;
            default: throw new IllegalArgumentException(kind);
        }
        for (int i = 2; i < args.length; i++) {
            try {
                ServiceInstance<?> inst = s.deserialize(Base64.getDecoder().decode(args[i]));
                System.out.println("read " + describe(inst));
            } catch (Exception e) {
                System.out.println("read error " + e.getClass().getSimpleName());
            }
        }
        System.out.println("curator: done");
    }

    static String describe(ServiceInstance<?> i) {
        Object p = i.getPayload();
        String spec = i.getUriSpec() == null ? "null" : i.getUriSpec().build(i);
        return "name=" + i.getName() + " id=" + i.getId() + " address=" + i.getAddress() + " port=" + i.getPort()
            + " sslPort=" + i.getSslPort() + " payload=" + (p == null ? "null" : p.getClass().getSimpleName() + ":" + p)
            + " time=" + i.getRegistrationTimeUTC() + " type=" + i.getServiceType() + " uri=" + spec + " enabled=" + i.isEnabled();
    }
}
