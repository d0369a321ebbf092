package io.github.hessianrs.dubbointerop;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.rpc.service.GenericService;

import io.github.hessianrs.demo.DemoService;
import io.github.hessianrs.demo.User;

/**
 * {@code capture HOST:PORT OUTDIR [--wait-readonly SECONDS]}: runs one call of each kind through a
 * frame-splitting relay on 127.0.0.1 and writes the exact frames:
 * {@code OUTDIR/<name>.request.bin} (what the Java consumer sent) and {@code <name>.response.bin}
 * (what the provider answered), {@code heartbeat.request.bin}/{@code heartbeat.response.bin}
 * (the consumer's URL has heartbeat=1000), {@code readonly.event.bin} (with --wait-readonly: the
 * provider's read-only event when it is shut down meanwhile; {@code WAITING-READONLY} is printed
 * when the capture waits for it) and {@code frames.tsv} describing every frame.
 */
final class Capture {
    private Capture() {
    }

    interface Call {
        Object call() throws Exception;
    }

    private static final class Item {
        final String name;
        final String text;
        final boolean twoWay;
        final long responseWaitMs;
        final Call call;

        Item(String name, String text, boolean twoWay, long responseWaitMs, Call call) {
            this.name = name;
            this.text = text;
            this.twoWay = twoWay;
            this.responseWaitMs = responseWaitMs;
            this.call = call;
        }
    }

    static int run(String[] args) throws Exception {
        if (args.length < 3) throw new Main.UsageException("capture needs HOST:PORT OUTDIR");
        String[] hp = Main.hostPort(args[1]);
        Path out = Paths.get(args[2]);
        int waitReadonly = 0;
        for (int i = 3; i < args.length; i++) {
            if (args[i].equals("--wait-readonly") && i + 1 < args.length) {
                waitReadonly = Integer.parseInt(args[++i]);
            } else {
                throw new Main.UsageException("unknown option " + args[i]);
            }
        }
        Files.createDirectories(out);
        InetSocketAddress target = Loopback.pinned(hp[0], Integer.parseInt(hp[1]), "capture target");
        int failures = 0;
        try (Relay relay = new Relay(target)) {
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put("heartbeat", "1000");
            ReferenceConfig<DemoService> rc = DubboSetup.reference("127.0.0.1", relay.port(), 5000, extra);
            ReferenceConfig<GenericService> grc = DubboSetup.genericReference("127.0.0.1", relay.port(), 5000, extra);
            DemoService svc = rc.get();
            GenericService gsvc = grc.get();

            Map<String, Object> genericUser = new HashMap<>();
            genericUser.put("class", User.class.getName());
            genericUser.put("id", 7L);
            genericUser.put("name", "generic");
            genericUser.put("age", 9);
            genericUser.put("email", "g@example.com");
            genericUser.put("active", Boolean.TRUE);
            genericUser.put("created", new Date(1700000000000L));

            List<Item> items = new ArrayList<>();
            items.add(new Item("sayHello", "sayHello(\"world\")", true, 5000, () -> svc.sayHello("world")));
            items.add(new Item("sayHello_unicode", "sayHello(<BMP + supplementary chars>)", true, 5000,
                    () -> svc.sayHello(Consumer.UNICODE)));
            items.add(new Item("sayHello_null", "sayHello(null)", true, 5000, () -> svc.sayHello(null)));
            items.add(new Item("sayHello_chunked", "sayHello(<33000 chars: one 32768-char chunk + final>)",
                    true, 5000, () -> svc.sayHello(Consumer.repeatPattern(33000))));
            items.add(new Item("getUser", "getUser(42L)", true, 5000, () -> svc.getUser(42)));
            items.add(new Item("echoUser", "echoUser(User(1234567890123, Zoë, 41, zoe@example.com, false, 1234567890123))",
                    true, 5000, () -> svc.echoUser(new User(1234567890123L, "Zo\u00eb", 41, "zoe@example.com", false,
                            new Date(1234567890123L)))));
            items.add(new Item("echoUser_nulls", "echoUser(User(0, null, 0, null, false, null))", true, 5000,
                    () -> svc.echoUser(new User(0, null, 0, null, false, null))));
            items.add(new Item("echoMap", "echoMap(<string,int,long,double,bool,null,list,map,date>)", true, 5000,
                    () -> svc.echoMap(Consumer.sampleMap())));
            items.add(new Item("echoList", "echoList([alpha, \"\", γ, delta])", true, 5000,
                    () -> svc.echoList(new ArrayList<>(Arrays.asList("alpha", "", "\u03b3", "delta")))));
            items.add(new Item("throwError", "throwError(\"boom\") -> IllegalStateException", true, 5000,
                    () -> { svc.throwError("boom"); return null; }));
            items.add(new Item("doNothing", "doNothing()", true, 5000, () -> { svc.doNothing(); return null; }));
            items.add(new Item("fireAndForget", "fireAndForget(\"fired\") one-way", false, 0,
                    () -> { svc.fireAndForget("fired"); return null; }));
            items.add(new Item("lastFired", "lastFired()", true, 5000, () -> {
                Thread.sleep(200);
                return svc.lastFired();
            }));
            items.add(new Item("slow", "slow(10)", true, 5000, () -> svc.slow(10)));
            items.add(new Item("slow_timeout", "slow(3000) with a 500 ms timeout (the late response is captured)",
                    true, 6000, () -> svc.slow(3000)));
            items.add(new Item("add", "add(2, 3)", true, 5000, () -> svc.add(2, 3)));
            items.add(new Item("count", "count()", true, 5000, svc::count));
            items.add(new Item("generic_sayHello", "$invoke(sayHello, [java.lang.String], [world])", true, 5000,
                    () -> gsvc.$invoke("sayHello", new String[] {"java.lang.String"}, new Object[] {"world"})));
            items.add(new Item("generic_getUser", "$invoke(getUser, [long], [42L]) -> map", true, 5000,
                    () -> gsvc.$invoke("getUser", new String[] {"long"}, new Object[] {42L})));
            items.add(new Item("generic_echoUser", "$invoke(echoUser, [User], [map with class])", true, 5000,
                    () -> gsvc.$invoke("echoUser", new String[] {User.class.getName()}, new Object[] {genericUser})));

            Set<Integer> assigned = new HashSet<>();
            Map<Integer, String> names = new HashMap<>();
            for (Item item : items) {
                int from = relay.size();
                String result;
                try {
                    result = "returned " + Consumer.show(item.call.call());
                } catch (Throwable t) {
                    result = "threw " + Consumer.describe(t);
                }
                Relay.Frame req = relay.await(from, f -> f.fromClient && f.isRequest() && !f.isEvent()
                        && !assigned.contains(f.seq), 5000);
                if (req == null) {
                    Consumer.println("FAIL " + item.name + ": no request frame seen; " + result);
                    failures++;
                    continue;
                }
                assigned.add(req.seq);
                names.put(req.seq, item.name + ".request.bin");
                write(out.resolve(item.name + ".request.bin"), req.bytes);
                String line = "captured " + item.name + " request=" + req.bytes.length;
                if (item.twoWay) {
                    final long id = req.id();
                    Relay.Frame resp = relay.await(from, f -> !f.fromClient && !f.isRequest() && f.id() == id,
                            item.responseWaitMs);
                    if (resp == null) {
                        Consumer.println("FAIL " + item.name + ": no response frame for id " + id + "; " + result);
                        failures++;
                        continue;
                    }
                    assigned.add(resp.seq);
                    names.put(resp.seq, item.name + ".response.bin");
                    write(out.resolve(item.name + ".response.bin"), resp.bytes);
                    line += String.format(" response=%d (status %d)", resp.bytes.length, resp.status());
                }
                Consumer.println(line + " # " + Consumer.oneLine(item.text) + ": " + result);
            }

            // heartbeat: the consumer's URL has heartbeat=1000; wait for the next one after idling
            int from = relay.size();
            Relay.Frame hb = relay.await(from, f -> f.fromClient && f.isEvent() && f.isRequest(), 10000);
            if (hb == null) {
                Consumer.println("FAIL heartbeat: no heartbeat request within 10 s");
                failures++;
            } else {
                final long id = hb.id();
                Relay.Frame hbr = relay.await(from, f -> !f.fromClient && !f.isRequest() && f.id() == id, 5000);
                write(out.resolve("heartbeat.request.bin"), hb.bytes);
                names.put(hb.seq, "heartbeat.request.bin");
                String line = "captured heartbeat request=" + hb.bytes.length;
                if (hbr != null) {
                    write(out.resolve("heartbeat.response.bin"), hbr.bytes);
                    names.put(hbr.seq, "heartbeat.response.bin");
                    line += " response=" + hbr.bytes.length;
                } else {
                    Consumer.println("FAIL heartbeat: no heartbeat response");
                    failures++;
                }
                Consumer.println(line);
            }

            if (waitReadonly > 0) {
                int mark = relay.size();
                Consumer.println("WAITING-READONLY");
                Relay.Frame ro = relay.await(mark, f -> !f.fromClient && f.isEvent() && f.isRequest(),
                        waitReadonly * 1000L);
                if (ro == null) {
                    Consumer.println("FAIL readonly: no read-only event within " + waitReadonly + " s");
                    failures++;
                } else {
                    write(out.resolve("readonly.event.bin"), ro.bytes);
                    names.put(ro.seq, "readonly.event.bin");
                    Consumer.println("captured readonly event=" + ro.bytes.length);
                    Thread.sleep(500); // let anything that follows arrive for frames.tsv
                }
            }

            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out.resolve("frames.tsv"), StandardCharsets.UTF_8))) {
                w.println("# dubbo " + DubboSetup.dubboVersion() + " consumer (capture) -> provider at "
                        + hp[0] + ":" + hp[1] + "; every frame that crossed the relay, in order");
                w.println("seq\tfile\tdirection\tflag\tstatus\tid\tbody_len");
                for (Relay.Frame f : relay.frames()) {
                    w.println(f.seq + "\t" + names.getOrDefault(f.seq, "-") + "\t"
                            + (f.fromClient ? "c2p" : "p2c") + "\t" + String.format("0x%02x", f.flag()) + "\t"
                            + f.status() + "\t" + f.id() + "\t" + f.bodyLength());
                }
            }
            if (relay.error() != null) {
                Consumer.println("FAIL relay: " + relay.error());
                failures++;
            }
            try {
                rc.destroy();
                grc.destroy();
            } catch (Throwable t) {
                // ignore
            }
        }
        Consumer.println(failures == 0 ? "capture ok" : "capture had " + failures + " failures");
        return failures == 0 ? 0 : 1;
    }

    private static void write(Path p, byte[] bytes) throws IOException {
        Files.write(p, bytes);
    }
}
