// A Curator LeaderSelector for zkrecipes' interoperability tests (the Go
// side is recipes/election.Run).
// Usage: CuratorSelector CONNECT PATH ID STOP_PATH
// Starts a LeaderSelector with ID on PATH (no auto-requeue) and prints
// "curator: ready". Its takeLeadership holds leadership until the node
// STOP_PATH exists. Every 10 ms it prints "curator: leading=BOOL leader=ID"
// whenever either changed (leader "-" when getLeader() names no one), until
// STOP_PATH exists (at most 60 s); then it closes the selector and prints
// "curator: done". Exits 1 on a timeout.
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorSelector {
    static volatile boolean leading;

    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1], id = args[2], stop = args[3];
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        LeaderSelector sel = new LeaderSelector(cf, path, new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework c) throws Exception {
                leading = true;
                try {
                    while (c.checkExists().forPath(stop) == null) {
                        Thread.sleep(10);
                    }
                } finally {
                    leading = false;
                }
            }
        });
        sel.setId(id);
        sel.start();
        System.out.println("curator: ready");
        System.out.flush();
        String last = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int rc = 1;
        while (System.nanoTime() < deadline) {
            if (cf.checkExists().forPath(stop) != null && !leading) {
                rc = 0;
                break;
            }
            Participant p = sel.getLeader();
            String leader = (p == null || p.getId().isEmpty()) ? "-" : p.getId();
            String now = "curator: leading=" + leading + " leader=" + leader;
            if (!now.equals(last)) {
                System.out.println(now);
                System.out.flush();
                last = now;
            }
            Thread.sleep(10);
        }
        sel.close();
        System.out.println("curator: done");
        System.out.flush();
        cf.close();
        System.exit(rc);
    }
}
