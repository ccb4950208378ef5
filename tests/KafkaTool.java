import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The tests' Kafka client (tests/kafka_broker.py), one command per JVM:
 *
 *   KafkaTool BOOTSTRAP roundtrip TOPIC           produce one record and read it back (exit 0)
 *   KafkaTool BOOTSTRAP create TOPIC PARTITIONS   create a topic
 *   KafkaTool BOOTSTRAP delete TOPIC...           delete topics (and wait until they are gone)
 *   KafkaTool BOOTSTRAP produce TOPIC KEY=VALUE... send records (partition by key), flush
 *   KafkaTool BOOTSTRAP consume TOPIC COUNT       print COUNT records' `partition offset key value`
 */
public final class KafkaTool {
    private static final Duration WAIT = Duration.ofSeconds(60);

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String command = args[1];
        List<String> rest = Arrays.asList(args).subList(2, args.length);
        switch (command) {
            case "roundtrip" -> roundtrip(bootstrap, rest.get(0));
            case "create" -> create(bootstrap, rest.get(0), Integer.parseInt(rest.get(1)));
            case "delete" -> delete(bootstrap, rest);
            case "produce" -> produce(bootstrap, rest.get(0), rest.subList(1, rest.size()));
            case "consume" -> consume(bootstrap, rest.get(0), Integer.parseInt(rest.get(1)));
            default -> throw new IllegalArgumentException("unknown command " + command);
        }
    }

    private static Properties base(String bootstrap) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("request.timeout.ms", "20000");
        props.put("default.api.timeout.ms", "60000");
        return props;
    }

    private static void create(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(base(bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                .all().get(60, TimeUnit.SECONDS);
        }
    }

    private static void delete(String bootstrap, List<String> topics) throws Exception {
        try (Admin admin = Admin.create(base(bootstrap))) {
            admin.deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
            long deadline = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < deadline) {
                var names = admin.listTopics().names().get(60, TimeUnit.SECONDS);
                if (topics.stream().noneMatch(names::contains)) {
                    return;
                }
                Thread.sleep(100);
            }
            throw new IllegalStateException("topics still listed after deletion: " + topics);
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties props = base(bootstrap);
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        props.put("acks", "all");
        props.put("max.block.ms", "60000");
        return new KafkaProducer<>(props);
    }

    private static void produce(String bootstrap, String topic, List<String> records) throws Exception {
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            for (String record : records) {
                int split = record.indexOf('=');
                String key = split < 0 ? null : record.substring(0, split);
                String value = split < 0 ? record : record.substring(split + 1);
                producer.send(new ProducerRecord<>(topic, key, value)).get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static List<ConsumerRecord<String, String>> read(String bootstrap, String topic, int count) {
        Properties props = base(bootstrap);
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        props.put("enable.auto.commit", "false");
        List<ConsumerRecord<String, String>> found = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = new ArrayList<>();
            long deadline = System.currentTimeMillis() + WAIT.toMillis();
            while (partitions.isEmpty() && System.currentTimeMillis() < deadline) {
                for (var info : consumer.partitionsFor(topic, WAIT)) {
                    partitions.add(new TopicPartition(topic, info.partition()));
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (found.size() < count && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    found.add(record);
                }
            }
        }
        if (found.size() < count) {
            throw new IllegalStateException("read " + found.size() + " of " + count + " records of " + topic);
        }
        return found;
    }

    private static void consume(String bootstrap, String topic, int count) {
        for (ConsumerRecord<String, String> r : read(bootstrap, topic, count)) {
            System.out.println(r.partition() + " " + r.offset() + " " + r.key() + " " + r.value());
        }
    }

    private static void roundtrip(String bootstrap, String topic) throws Exception {
        create(bootstrap, topic, 1);
        String value = "ready-" + System.nanoTime();
        produce(bootstrap, topic, List.of("k=" + value));
        List<ConsumerRecord<String, String>> got = read(bootstrap, topic, 1);
        if (!got.get(0).value().equals(value)) {
            throw new IllegalStateException("read " + got.get(0).value() + ", sent " + value);
        }
    }
}
