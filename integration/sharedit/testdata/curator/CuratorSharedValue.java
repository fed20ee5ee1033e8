// A Curator SharedValue for zkrecipes' interoperability tests (the Go side
// is recipes/shared.Bytes). Values are given and printed as lowercase hex.
// Usage:
//   CuratorSharedValue CONNECT PATH tryset HEX     reads the versioned value, then
//                                                 trySetValue(it, HEX): prints "curator: ok=BOOL"
//   CuratorSharedValue CONNECT PATH stale HEX      reads the versioned value, prints "curator: read
//                                                 version=V", waits until PATH-go exists (the Go side
//                                                 writes meanwhile), then trySetValue(what it read, HEX):
//                                                 prints "curator: ok=BOOL"
//   CuratorSharedValue CONNECT PATH await HEX      waits up to 30 s (a listener) until the value is HEX
// Every mode then prints "curator: value=HEX version=V" and exits 0 (1 when await times out).
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.shared.SharedValue;
import org.apache.curator.framework.recipes.shared.SharedValueListener;
import org.apache.curator.framework.recipes.shared.SharedValueReader;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorSharedValue {
    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1], mode = args[2];
        byte[] want = unhex(args[3]);
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        SharedValue value = new SharedValue(cf, path, new byte[0]);
        CountDownLatch seen = new CountDownLatch(1);
        value.getListenable().addListener(new SharedValueListener() {
            @Override
            public void valueHasChanged(SharedValueReader r, byte[] v) {
                if (java.util.Arrays.equals(v, want)) {
                    seen.countDown();
                }
            }

            @Override
            public void stateChanged(CuratorFramework c, ConnectionState s) {
            }
        });
        value.start();
        int rc = 0;
        switch (mode) {
            case "tryset": {
                VersionedValue<byte[]> v = value.getVersionedValue();
                say("curator: ok=" + value.trySetValue(v, want));
                break;
            }
            case "stale": {
                VersionedValue<byte[]> v = value.getVersionedValue();
                say("curator: read version=" + v.getVersion());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (cf.checkExists().forPath(path + "-go") == null && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                say("curator: ok=" + value.trySetValue(v, want));
                break;
            }
            case "await":
                if (!java.util.Arrays.equals(value.getValue(), want) && !seen.await(30, TimeUnit.SECONDS)) {
                    rc = 1;
                }
                break;
            default:
                throw new IllegalArgumentException("mode " + mode);
        }
        VersionedValue<byte[]> v = value.getVersionedValue();
        say("curator: value=" + hex(v.getValue()) + " version=" + v.getVersion());
        value.close();
        cf.close();
        System.exit(rc);
    }

    static void say(String s) {
        System.out.println(s);
        System.out.flush();
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }

    static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
