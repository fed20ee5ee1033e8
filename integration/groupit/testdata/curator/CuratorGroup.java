// A Curator GroupMember for zkrecipes' interoperability tests (the Go side
// is recipes/group.Member).
// Usage: CuratorGroup CONNECT PATH ID DATA STOP_PATH
// Joins the group at PATH as ID with DATA and prints "curator: ready". Then,
// every 10 ms, it reads getCurrentMembers() and prints
// "curator: members=ID=DATA,ID=DATA..." (sorted by id) whenever it changed,
// until the node STOP_PATH exists (at most 60 s); then it closes the member
// and prints "curator: done". Exits 1 on a timeout.
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorGroup {
    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1], id = args[2], data = args[3], stop = args[4];
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        GroupMember member = new GroupMember(cf, path, id, data.getBytes(StandardCharsets.UTF_8));
        member.start();
        System.out.println("curator: ready");
        System.out.flush();
        String last = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int rc = 1;
        while (System.nanoTime() < deadline) {
            if (cf.checkExists().forPath(stop) != null) {
                rc = 0;
                break;
            }
            StringBuilder now = new StringBuilder("curator: members=");
            String sep = "";
            for (Map.Entry<String, byte[]> e : new TreeMap<>(member.getCurrentMembers()).entrySet()) {
                now.append(sep).append(e.getKey()).append('=').append(new String(e.getValue(), StandardCharsets.UTF_8));
                sep = ",";
            }
            if (!now.toString().equals(last)) {
                System.out.println(now);
                System.out.flush();
                last = now.toString();
            }
            Thread.sleep(10);
        }
        member.close();
        System.out.println("curator: done");
        System.out.flush();
        cf.close();
        System.exit(rc);
    }
}
