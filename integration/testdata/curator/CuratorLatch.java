// A Curator LeaderLatch for zkrecipes' interoperability tests (the Go side
// is recipes/election.Latch).
// Usage: CuratorLatch CONNECT PATH ID STOP_PATH
// Starts a LeaderLatch with ID on PATH and prints "curator: ready". Then,
// every 10 ms, it reads hasLeadership() and getLeader() and prints
// "curator: leading=BOOL leader=ID" whenever either changed (leader "-"
// when getLeader() names no one), until the node STOP_PATH exists (at most
// 60 s); then it closes the latch and prints "curator: done". Exits 1 on a
// timeout.
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorLatch {
    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1], id = args[2], stop = args[3];
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        LeaderLatch latch = new LeaderLatch(cf, path, id);
        latch.start();
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
            Participant p = latch.getLeader();
            String leader = (p == null || p.getId().isEmpty()) ? "-" : p.getId();
            String now = "curator: leading=" + latch.hasLeadership() + " leader=" + leader;
            if (!now.equals(last)) {
                System.out.println(now);
                System.out.flush();
                last = now;
            }
            Thread.sleep(10);
        }
        latch.close();
        System.out.println("curator: done");
        System.out.flush();
        cf.close();
        System.exit(rc);
    }
}
