// Command kafkafake is an in-process Kafka broker (franz-go's kfake) on
// loopback for the e2e scripts: it creates the topics given, writes records
// to partition 0 of some, prints its address on one line and serves until
// it is signalled (SIGTERM or Ctrl-C).
//
//	kafkafake --empty TOPIC[,TOPIC] --records TOPIC=N[,TOPIC=N]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kafkafake:", err)
		os.Exit(1)
	}
}

func run() error {
	empty := flag.String("empty", "", "comma-separated topics to create empty")
	records := flag.String("records", "", "comma-separated TOPIC=N: topics to create with N records in partition 0")
	flag.Parse()
	counts := map[string]int{}
	var topics []string
	topics = append(topics, splitList(*empty)...)
	for _, tn := range splitList(*records) {
		t, n, ok := strings.Cut(tn, "=")
		c, err := strconv.Atoi(n)
		if !ok || err != nil || c < 0 {
			return fmt.Errorf("--records %q: want TOPIC=N", tn)
		}
		counts[t] = c
		topics = append(topics, t)
	}
	opts := []kfake.Opt{kfake.NumBrokers(1)}
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(1, topics...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return err
	}
	for t, n := range counts {
		for i := 0; i < n; i++ {
			if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: t, Value: []byte("old record")}).FirstErr(); err != nil {
				cl.Close()
				return fmt.Errorf("produce to %s: %w", t, err)
			}
		}
	}
	cl.Close()
	fmt.Println(strings.Join(c.ListenAddrs(), ","))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
