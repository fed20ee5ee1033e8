// A Curator SharedCount for zkrecipes' interoperability tests (the Go side is
// recipes/shared.Count).
// Usage:
//   CuratorSharedCount CONNECT PATH set VALUE    sets the count (seed 0 if the node is missing)
//   CuratorSharedCount CONNECT PATH await VALUE  waits up to 30 s until the count is VALUE
// Both print "curator: count=N version=V bytes=HEX" with the node's raw data as
// lowercase hex, read with a plain getData, and exit 0 (1 when await times out).
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorSharedCount {
    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1], mode = args[2];
        int value = Integer.parseInt(args[3]);
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        SharedCount count = new SharedCount(cf, path, 0);
        count.start();
        int rc = 0;
        switch (mode) {
            case "set":
                count.setCount(value);
                break;
            case "await":
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (count.getCount() != value && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                if (count.getCount() != value) {
                    rc = 1;
                }
                break;
            default:
                throw new IllegalArgumentException("mode " + mode);
        }
        VersionedValue<Integer> v = count.getVersionedValue();
        byte[] raw = cf.getData().forPath(path);
        StringBuilder hex = new StringBuilder();
        for (byte b : raw) {
            hex.append(String.format("%02x", b));
        }
        System.out.println("curator: count=" + v.getValue() + " version=" + v.getVersion() + " bytes=" + hex);
        System.out.flush();
        count.close();
        cf.close();
        System.exit(rc);
    }
}
