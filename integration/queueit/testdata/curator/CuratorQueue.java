// Curator 5.4's queues for zkrecipes' interoperability tests (the Go side
// is recipes/queue).
//
// Usage: CuratorQueue CONNECT KIND PATH LOCK_PATH COMMAND [ARGS]
//   KIND is queue (DistributedQueue), id (DistributedIdQueue), priority
//   (DistributedPriorityQueue), delay (DistributedDelayQueue) or simple
//   (SimpleDistributedQueue); LOCK_PATH is the queues' lockPath, "-" for
//   none. Items are strings, stored as their UTF-8 bytes.
//
//   produce N PREFIX [MULTI]
//       prints "curator: producing", then puts "PREFIX0".."PREFIX<N-1>" in
//       order (putInBackground false),
//       MULTI to a node with putMulti when given (queue, priority, delay);
//       item i has id "id<i%10>", priority (i*37)%101-50, or is due
//       (N-i)*5 ms after the first put; prints "curator: produced N".
//   consume N THREADS [STOP_PATH]
//       prints "curator: ready" once THREADS consumers (each a client of
//       its own) are started, then "curator: got=ITEM by=T" for each item
//       consumed, and "curator: done" once N were, or once the node
//       STOP_PATH exists (exit 1 after 60 s); with a LOCK_PATH it first
//       waits (up to 10 s) until no lock node is left, so the items it
//       printed are deleted from the queue before it closes.
//   remove ID
//       DistributedIdQueue.remove(ID); prints "curator: removed=K".
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.queue.DistributedDelayQueue;
import org.apache.curator.framework.recipes.queue.DistributedIdQueue;
import org.apache.curator.framework.recipes.queue.DistributedPriorityQueue;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.MultiItem;
import org.apache.curator.framework.recipes.queue.QueueBase;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.queue.SimpleDistributedQueue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorQueue {
    static final QueueSerializer<String> SERIALIZER = new QueueSerializer<String>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    static String kind, path, lockPath;

    static CuratorFramework connect(String connect) throws Exception {
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 5));
        cf.start();
        if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + connect);
        }
        return cf;
    }

    static QueueBuilder<String> builder(CuratorFramework cf, QueueConsumer<String> consumer) {
        QueueBuilder<String> b = QueueBuilder.builder(cf, consumer, SERIALIZER, path).putInBackground(false);
        if (!lockPath.equals("-")) {
            b = b.lockPath(lockPath);
        }
        return b;
    }

    static QueueBase<String> build(QueueBuilder<String> b) {
        switch (kind) {
            case "queue":
                return b.buildQueue();
            case "id":
                return b.buildIdQueue();
            case "priority":
                return b.buildPriorityQueue(0);
            case "delay":
                return b.buildDelayQueue();
        }
        throw new IllegalArgumentException("unknown kind " + kind);
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        kind = args[1];
        path = args[2];
        lockPath = args[3];
        String command = args[4];
        switch (command) {
            case "produce":
                produce(connect, Integer.parseInt(args[5]), args[6], args.length > 7 ? Integer.parseInt(args[7]) : 0);
                break;
            case "consume":
                consume(connect, Integer.parseInt(args[5]), Integer.parseInt(args[6]), args.length > 7 ? args[7] : null);
                break;
            case "remove":
                remove(connect, args[5]);
                break;
            default:
                throw new IllegalArgumentException("unknown command " + command);
        }
        System.exit(0);
    }

    static MultiItem<String> items(List<String> list) {
        final int[] next = {0};
        return () -> next[0] < list.size() ? list.get(next[0]++) : null;
    }

    static void produce(String connect, int n, String prefix, int multi) throws Exception {
        CuratorFramework cf = connect(connect);
        print("curator: producing");
        if (kind.equals("simple")) {
            SimpleDistributedQueue q = new SimpleDistributedQueue(cf, path);
            for (int i = 0; i < n; i++) {
                q.offer((prefix + i).getBytes(StandardCharsets.UTF_8));
            }
        } else {
            QueueBase<String> q = build(builder(cf, null));
            q.start();
            long start = System.currentTimeMillis();
            for (int i = 0; i < n; ) {
                if (multi > 0) {
                    List<String> batch = new ArrayList<>();
                    int first = i;
                    for (; i < n && batch.size() < multi; i++) {
                        batch.add(prefix + i);
                    }
                    switch (kind) {
                        case "queue":
                            ((DistributedQueue<String>) q).putMulti(items(batch));
                            break;
                        case "priority":
                            ((DistributedPriorityQueue<String>) q).putMulti(items(batch), priority(first));
                            break;
                        case "delay":
                            ((DistributedDelayQueue<String>) q).putMulti(items(batch), start + (n - first) * 5L);
                            break;
                        default:
                            throw new IllegalArgumentException("no putMulti for " + kind);
                    }
                    continue;
                }
                String item = prefix + i;
                switch (kind) {
                    case "queue":
                        ((DistributedQueue<String>) q).put(item);
                        break;
                    case "id":
                        ((DistributedIdQueue<String>) q).put(item, "id" + (i % 10));
                        break;
                    case "priority":
                        ((DistributedPriorityQueue<String>) q).put(item, priority(i));
                        break;
                    case "delay":
                        ((DistributedDelayQueue<String>) q).put(item, start + (n - i) * 5L);
                        break;
                }
                i++;
            }
            q.flushPuts(30, TimeUnit.SECONDS);
            q.close();
        }
        print("curator: produced " + n);
        cf.close();
    }

    static int priority(int i) {
        return (i * 37) % 101 - 50;
    }

    static void consume(String connect, int n, int threads, String stop) throws Exception {
        CountDownLatch done = new CountDownLatch(n);
        AtomicInteger got = new AtomicInteger();
        List<CuratorFramework> clients = new ArrayList<>();
        List<QueueBase<String>> queues = new ArrayList<>();
        List<Thread> takers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int who = t;
            CuratorFramework cf = connect(connect);
            clients.add(cf);
            if (kind.equals("simple")) {
                SimpleDistributedQueue q = new SimpleDistributedQueue(cf, path);
                Thread taker = new Thread(() -> {
                    try {
                        while (got.get() < n) {
                            byte[] b = q.poll(200, TimeUnit.MILLISECONDS);
                            if (b != null) {
                                got.incrementAndGet();
                                print("curator: got=" + new String(b, StandardCharsets.UTF_8) + " by=" + who);
                                done.countDown();
                            }
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                takers.add(taker);
                continue;
            }
            QueueConsumer<String> consumer = new QueueConsumer<String>() {
                @Override
                public void consumeMessage(String message) {
                    got.incrementAndGet();
                    print("curator: got=" + message + " by=" + who);
                    done.countDown();
                }

                @Override
                public void stateChanged(CuratorFramework client, ConnectionState newState) {
                }
            };
            QueueBase<String> q = build(builder(cf, consumer));
            queues.add(q);
        }
        print("curator: ready");
        for (QueueBase<String> q : queues) {
            q.start();
        }
        for (Thread t : takers) {
            t.start();
        }
        boolean all = false;
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); !all && System.nanoTime() < deadline; ) {
            all = done.await(20, TimeUnit.MILLISECONDS) || (stop != null && clients.get(0).checkExists().forPath(stop) != null);
        }
        // In lock-safe mode Curator deletes an item (with its lock node, in
        // one transaction) after consumeMessage returns, and close()
        // interrupts that delete: wait until no lock node is left, so the
        // last items counted are gone from the queue before we close.
        if (all && !lockPath.equals("-") && !kind.equals("simple")) {
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); System.nanoTime() < deadline; ) {
                if (clients.get(0).checkExists().forPath(lockPath) == null
                        || clients.get(0).getChildren().forPath(lockPath).isEmpty()) {
                    break;
                }
                Thread.sleep(20);
            }
        }
        for (QueueBase<String> q : queues) {
            q.close();
        }
        for (Thread t : takers) {
            t.join(5000);
        }
        for (CuratorFramework cf : clients) {
            cf.close();
        }
        print(all ? "curator: done" : "curator: timed out with " + got.get() + " of " + n);
        if (!all) {
            System.exit(1);
        }
    }

    static void remove(String connect, String id) throws Exception {
        CuratorFramework cf = connect(connect);
        DistributedIdQueue<String> q = (DistributedIdQueue<String>) build(builder(cf, null));
        q.start();
        print("curator: removed=" + q.remove(id));
        q.close();
        cf.close();
    }

    static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
